/**
 * Webhook delivery as Telegram does it, for tests that need it (opt-in, see
 * `FakeTelegram.deliverToWebhook`): while a webhook is registered, every queued update is POSTed
 * to it with the secret-token header and stays queued until the webhook answers 200; any other
 * answer, a refused connection or a timeout means it is posted again later, with a growing pause.
 *
 * What the real service does that this compresses or assumes: Telegram does not document its
 * retry schedule (it is seconds to minutes and keeps an update up to 24 hours); here the pause
 * starts at `firstRetryMs` and doubles up to `maxRetryMs`. Telegram opens up to `max_connections`
 * (default 40) connections at once; here at most `maxConnections` posts are in flight, and a
 * chat's updates go one after another (the next only after the one before was taken), so a chat's
 * order is defined. Updates of other chats do not wait for a chat whose update is refused.
 */
import type { Update } from 'grammy/types';
import type { FakeTelegramState } from './fake-telegram-state.ts';

/** How the fake retries. */
export interface WebhookDeliveryOptions {
  /** Pause before the first retry of an update (default 100 ms); it doubles with each failure. */
  firstRetryMs?: number;
  /** Longest pause between retries (default 1,000 ms). */
  maxRetryMs?: number;
  /** Posts in flight at once (default 40, Telegram's default `max_connections`). */
  maxConnections?: number;
  /** A post not answered within this is given up and retried (default 60,000 ms). */
  timeoutMs?: number;
  /** Random numbers in [0, 1) for the jitter of the pauses (default `Math.random`). */
  random?: () => number;
}

/** A running webhook delivery and what it saw. */
export interface WebhookDelivery {
  /** Update ids the webhook answered 200 to. */
  readonly acknowledged: ReadonlySet<number>;
  /** Posts that did not get a 200 (each is retried). */
  readonly failures: number;
  /** Posts in flight or updates waiting for a retry. */
  busy(): boolean;
  /** Stops posting (posts in flight finish; nothing is retried after). */
  stop(): void;
}

/** The chat an update belongs to, so one chat's updates keep their order. */
function chatOf(update: Update): number | string {
  const message = update.message ?? update.edited_message ?? update.channel_post ?? update.callback_query?.message;
  return message?.chat.id ?? `update-${update.update_id}`;
}

/** Starts delivering `state`'s queued updates to its registered webhook, until stopped. */
export function deliverToWebhook(state: FakeTelegramState, options: WebhookDeliveryOptions = {}): WebhookDelivery {
  const firstRetryMs = options.firstRetryMs ?? 100;
  const maxRetryMs = options.maxRetryMs ?? 1_000;
  const maxConnections = options.maxConnections ?? 40;
  const timeoutMs = options.timeoutMs ?? 60_000;
  const random = options.random ?? Math.random;
  const acknowledged = new Set<number>();
  const inFlight = new Set<number>();
  /** Per update: failures so far and when it may be posted again. */
  const retries = new Map<number, { failures: number; notBefore: number }>();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  let failures = 0;
  let stopped = false;
  let pumpQueued = false;

  const pumpSoon = () => {
    if (pumpQueued || stopped) return;
    pumpQueued = true;
    setImmediate(() => {
      pumpQueued = false;
      pump();
    });
  };

  /** Pumps again after `ms`. */
  function later(ms: number): void {
    const timer = setTimeout(() => {
      timers.delete(timer);
      pumpSoon();
    }, ms);
    timers.add(timer);
  }

  function pump(): void {
    const webhook = state.webhook;
    if (stopped || !webhook) return;
    const blockedChats = new Set<number | string>();
    const now = Date.now();
    for (const update of state.pendingUpdates()) {
      if (inFlight.size >= maxConnections) return;
      const chat = chatOf(update);
      if (blockedChats.has(chat)) continue;
      // Whatever happens to this update, the chat's later ones wait for it.
      blockedChats.add(chat);
      if (inFlight.has(update.update_id) || acknowledged.has(update.update_id)) continue;
      const retry = retries.get(update.update_id);
      if (retry && retry.notBefore > now) {
        // A timer may fire a millisecond before the clock says its pause is over: look again then.
        later(retry.notBefore - now + 1);
        continue;
      }
      void post(update, webhook);
    }
  }

  async function post(update: Update, webhook: NonNullable<FakeTelegramState['webhook']>): Promise<void> {
    inFlight.add(update.update_id);
    let status: number;
    try {
      const response = await fetch(webhook.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(webhook.secretToken ? { 'x-telegram-bot-api-secret-token': webhook.secretToken } : {}) },
        body: JSON.stringify(update),
        signal: AbortSignal.timeout(timeoutMs),
      });
      await response.arrayBuffer();
      status = response.status;
    } catch {
      status = 0;
    }
    inFlight.delete(update.update_id);
    if (status === 200) {
      acknowledged.add(update.update_id);
      retries.delete(update.update_id);
      state.confirmUpdate(update.update_id);
    } else {
      failures++;
      const count = (retries.get(update.update_id)?.failures ?? 0) + 1;
      const pause = Math.min(maxRetryMs, firstRetryMs * 2 ** (count - 1)) * (0.75 + random() * 0.5);
      retries.set(update.update_id, { failures: count, notBefore: Date.now() + pause });
      later(pause);
    }
    pumpSoon();
  }

  const unsubscribe = state.subscribe(pumpSoon);
  pumpSoon();
  return {
    acknowledged,
    get failures() {
      return failures;
    },
    busy: () => inFlight.size > 0 || state.pendingUpdates().length > 0,
    stop() {
      stopped = true;
      unsubscribe();
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}
