/**
 * The Telegram channel: a grammy `Bot` behind the neutral {@link ChannelAdapter} contract. It
 * receives by long polling, or by webhook when one is configured, and hands each message over,
 * waiting only until the gateway has it on record (the answer runs on), so one slow conversation
 * never holds up another.
 *
 * grammy is imported as `grammy/web`, its build on the platform's `fetch`: the Node build loads
 * node-fetch v2 with whatwg-url and its Unicode tables at once, which made the gateway some 50 ms
 * slower to be ready. Its calls go through `keepAliveFetch` (node-fetch with keep-alive agents,
 * loaded as the channel starts; the bundle leaves whatwg-url out, see bin/build.js), which costs
 * half the CPU per call of Node's own fetch. Every module of this channel imports the web build,
 * so `GrammyError` and `HttpError` are the classes its errors are instances of.
 */
import { Bot, type ApiClientOptions } from 'grammy/web';
import { staleButtonNotice } from '../stale-press.ts';
import { DeliveryError, NotAcceptedError, type ChannelAdapter, type ChannelCapabilities, type ChannelHandlers, type ChannelMemory } from '../types.ts';
import { downloadFile } from './attachments.ts';
import { createCallTelegram, type RetryPolicy } from './call-telegram.ts';
import { loadFormatter } from './format/load-formatter.ts';
import { telegramMaxLength } from './format/max-length.ts';
import { createBotTurns, defaultBotTurns } from '../bot-turns.ts';
import { toChannelEvent, type InboundContext } from './inbound.ts';
import { grammySignal, runLongPolling } from './long-polling.ts';
import { createTelegramOutbound } from './outbound.ts';
import { createTelegramDrafts, type TelegramDraftsMode } from './drafts.ts';
import { createScrub, toDeliveryError } from './telegram-errors.ts';
import { createWebhookRoute, defaultWebhookPath } from './webhook.ts';
import { keepAliveFetch, loadKeepAliveFetch } from '../../core/keep-alive-fetch.ts';
import { createLinkStatus } from '../link-status.ts';
import { createOutsideErrors } from '../outside-errors.ts';
import { unwrap, updateKind } from './guarded-update.ts';
import { reportingRateLimits } from '../rate-limit-retry.ts';
import { markdownWarmUpSample } from '../markdown/warm-up-sample.ts';

/** Options of {@link createTelegramChannel}. */
export interface TelegramChannelOptions {
  /** The bot token from BotFather. Never logged. */
  token: string;
  /** A self-hosted Bot API server (default `https://api.telegram.org`). */
  apiRoot?: string;
  /** Receive by webhook instead of long polling: registered with `secret` on start. */
  webhook?: {
    /** The public URL Telegram posts to. */
    url: string;
    /** Sent back by Telegram in `X-Telegram-Bot-Api-Secret-Token` (1-256 of `A-Z a-z 0-9 _ -`). */
    secret: string;
    /** The route's path on the gateway's server (default `/webhooks/telegram`). */
    path?: string;
  };
  /** Rate-limit retries (default: 3 attempts, waits up to 30 s honoured in place). */
  retry?: Partial<RetryPolicy>;
  /** getUpdates long-poll timeout in seconds (default 30). */
  pollTimeoutSeconds?: number;
  /** The pause after a failed getUpdates, in ms, doubled per failure in a row up to 30 s (default 500). */
  pollRetryDelayMs?: number;
  /** How long `start` may try to reach Telegram (getMe) before failing, in ms (default 30,000). */
  startTimeoutMs?: number;
  /** Where problems are reported (default stderr). Lines never contain the token. */
  log?: (line: string) => void;
  /** The clock for `receivedAt` (default `Date.now`). */
  now?: () => number;
  /** Hand over messages of other bots (`is_bot` senders, `via_bot`) too (default false: people only). */
  allowBots?: boolean;
  /** With `allowBots`: how many bots' messages in a row one conversation takes before a person writes again (default 5). */
  botTurns?: number;
  /** Stream replies in private chats by drafts where the server takes them (`auto`, the default), or by edited previews (`off`). */
  drafts?: TelegramDraftsMode;
  /** Hand over messages their senders edit (`edited_message`), marked `edited` (default false: Telegram is not asked for them). */
  editedMessages?: boolean;
  /** Where the adapter keeps what a restart should still know (a server's refusal of drafts); unset: this process only. */
  memory?: ChannelMemory;
}

/** The kinds of update the adapter asks Telegram for. */
export type TelegramUpdateKind = 'message' | 'edited_message' | 'callback_query' | 'my_chat_member';

const capabilities: ChannelCapabilities = {
  edit: true,
  typing: true,
  buttons: true,
  threads: true,
  maxLength: telegramMaxLength,
  editIntervalMs: 1_000,
  commandMenu: true,
  maxFileBytes: 50 * 1000 * 1000,
};

/**
 * `my_chat_member`: who added the bot to a group (an admin's adding approves it), and the bot
 * removed from a group or blocked in a private chat (its scheduled jobs there stop).
 */
const allowedUpdates: TelegramUpdateKind[] = ['message', 'callback_query', 'my_chat_member'];

/**
 * Creates the Telegram adapter.
 *
 * @example
 * const telegram = createTelegramChannel({ token: process.env.TELEGRAM_BOT_TOKEN! });
 * await telegram.start({ onMessage, onAction });
 */
export function createTelegramChannel(options: TelegramChannelOptions): ChannelAdapter {
  const scrub = createScrub(options.token);
  const log = options.log ?? ((line: string) => console.error(line));
  const apiRoot = (options.apiRoot ?? 'https://api.telegram.org').replace(/\/+$/, '');
  // The keep-alive transport, loaded by start() (half the CPU per call of Node's fetch).
  const bot = new Bot(options.token, { client: { apiRoot, fetch: keepAliveFetch as unknown as ApiClientOptions['fetch'] } });
  let handlers: ChannelHandlers | undefined;
  const link = createLinkStatus({ status: () => handlers?.status, scrub, log, platform: 'telegram' });
  const outside = createOutsideErrors({ status: () => handlers?.status, scrub, log, platform: 'telegram' });
  const call = createCallTelegram(reportingRateLimits(options.retry, (waitMs) => link.rateLimited(waitMs)), scrub);
  const outbound = createTelegramOutbound(bot.api, call, log, capabilities.maxFileBytes);
  const drafts = createTelegramDrafts(bot.api, call, (line) => log(scrub(line)), options.drafts ?? 'auto', options.memory);
  let running = false;
  let lifecycle: AbortController | undefined;
  let polling: Promise<void> | undefined;

  const context: InboundContext = {
    get bot() {
      return { id: bot.botInfo.id, username: bot.botInfo.username };
    },
    download: (fileId, maxBytes) => downloadFile(fileId, { token: options.token, apiRoot, getFile: (id) => call('getFile', () => bot.api.getFile(id)) }, maxBytes),
    now: options.now ?? Date.now,
    allowBots: options.allowBots ?? false,
    ...(options.allowBots ? { botTurns: createBotTurns(options.botTurns ?? defaultBotTurns) } : {}),
    editedMessages: options.editedMessages === true,
  };
  // Edits are asked for only where they are used: Telegram then sends none at all.
  const updateKinds: TelegramUpdateKind[] = options.editedMessages ? [...allowedUpdates, 'edited_message'] : allowedUpdates;

  // A message is handed over and waited for until the gateway has it on record (its answer runs
  // on): only then does the webhook answer 200 or the poll offset move past it. When the gateway
  // cannot take it, the error goes up, so Telegram keeps the update and delivers it again.
  bot.use(async (grammyContext) => {
    const update = grammyContext.update;
    const current = handlers;
    if (!running || !current) return;
    let event;
    try {
      event = toChannelEvent(update, context);
    } catch (error) {
      // A shape the adapter's reading did not expect: reported and dropped (see `guarded-update.ts`).
      outside.report(updateKind(update), error);
      return;
    }
    if (!event) {
      // A press the gateway cannot place (on an inline-mode message, or without its message) is
      // still answered, or the person's button spins until their app gives up.
      const press = update.callback_query;
      if (press) void outbound.answerAction(press, staleButtonNotice).catch((error: unknown) => log(scrub(`telegram: press ${update.update_id} not answered: ${describeError(error)}`)));
      return;
    }
    if ('action' in event) {
      void current.onAction(event.action).catch((error: unknown) => log(scrub(`telegram: handler failed for update ${update.update_id}: ${describeError(error)}`)));
      return;
    }
    try {
      if ('join' in event) await current.onGroupJoin?.(event.join);
      else if ('membership' in event) await current.onMembership?.(event.membership);
      else await current.onMessage(event.message);
    } catch (error) {
      if (error instanceof NotAcceptedError) throw error;
      log(scrub(`telegram: handler failed for update ${update.update_id}: ${describeError(error)}`));
    }
  });

  return {
    platform: 'telegram',
    capabilities,
    drafts,

    async start(startHandlers) {
      if (running) throw new Error('telegram: already started');
      handlers = startHandlers;
      lifecycle = new AbortController();
      const startTimeoutMs = options.startTimeoutMs ?? 30_000;
      const timeout = AbortSignal.timeout(startTimeoutMs);
      // The keep-alive transport from the first call on (start-up's own calls included): it loads
      // in about 30 ms of CPU in dist/, and each call through it costs half that of Node's fetch.
      await loadKeepAliveFetch().catch(() => undefined);
      try {
        // grammy retries getMe on network errors until the signal ends it.
        await bot.init(grammySignal(AbortSignal.any([lifecycle.signal, timeout])));
      } catch (error) {
        if (timeout.aborted) throw new DeliveryError(`Telegram getMe failed: no answer from the Bot API within ${startTimeoutMs} ms`, { retryable: true });
        if (lifecycle.signal.aborted) throw new DeliveryError('Telegram start cancelled by stop()', { retryable: true });
        throw toDeliveryError(error, 'getMe', scrub);
      }
      // Before any reply: a server that refused this bot drafts before is not asked again.
      await drafts.recall(bot.botInfo.id, apiRoot);
      if (options.webhook) {
        const { url, secret } = options.webhook;
        await call('setWebhook', () => bot.api.setWebhook(url, { secret_token: secret, allowed_updates: updateKinds }));
        // A webhook holds no connection of ours: nothing is ever reported lost.
        running = true;
        return;
      }
      await call('deleteWebhook', () => bot.api.deleteWebhook());
      running = true;
      link.started();
      const signal = lifecycle.signal;
      const poll = (): Promise<void> =>
        runLongPolling(bot, {
          timeoutSeconds: options.pollTimeoutSeconds ?? 30,
          allowedUpdates: updateKinds,
          signal,
          log,
          scrub,
          link,
          outside,
          firstRetryDelayMs: options.pollRetryDelayMs ?? 500,
        }).catch(async (error: unknown) => {
          // The loop itself threw: reported, and polling starts again (from Telegram's own
          // offset) a second later, rather than leaving Telegram unheard until a restart.
          outside.report('getUpdates', unwrap(error));
          if (signal.aborted) return;
          await new Promise((resolve) => setTimeout(resolve, 1_000));
          if (!signal.aborted) await poll();
        });
      // The first getUpdates waits until the gateway can answer what it brings without loading
      // anything (or until stop()).
      const warmed = startHandlers.warmed;
      polling = warmed ? Promise.race([warmed, aborted(signal)]).then(() => (signal.aborted ? undefined : poll())) : poll();
    },

    async stop() {
      running = false;
      link.stopped();
      lifecycle?.abort();
      await polling;
      polling = undefined;
    },

    // The transport is loaded by start(); what the first answer needs besides is the formatter,
    // used once (its first use compiles marked's rules).
    async warm() {
      (await loadFormatter()).formatTelegramMessage(markdownWarmUpSample);
    },

    send: (address, message) => outbound.send(address, message),
    edit: (address, messageId, message) => outbound.edit(address, messageId, message),
    typing: (address) => outbound.typing(address),
    setCommands: (commands) => outbound.setCommands(commands),
    answerAction: (action, text) => outbound.answerAction(action, text),

    routes() {
      if (!options.webhook) return [];
      return [createWebhookRoute(bot, { path: options.webhook.path ?? defaultWebhookPath, secret: options.webhook.secret, isRunning: () => running, log, scrub, outside })];
    },
  };
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Resolves when `signal` aborts (at once if it has). */
function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => (signal.aborted ? resolve() : signal.addEventListener('abort', () => resolve(), { once: true })));
}
