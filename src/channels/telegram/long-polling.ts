/**
 * A small getUpdates loop instead of grammy's `bot.start()`, so stopping is prompt: the held
 * long poll and every back-off wait end as soon as the signal aborts. Each batch is handed to
 * grammy's `handleUpdate` (whose middleware only hands events over), and the offset advances past
 * every update handed over, or dropped because its handling threw (see `guarded-update.ts`); the
 * last offset is confirmed when polling stops.
 *
 * The loop is the Telegram link's only sign of life: a getUpdates that fails on the network or
 * with a 5xx counts as the link lost (once, however long it keeps failing), the next one that
 * answers as the link back; a 429 is a rate limit, other refusals are not the link's.
 */
import type { TelegramUpdateKind } from './telegram-channel.ts';
import { GrammyError, type Bot } from 'grammy/web';
import type { LinkStatus } from '../link-status.ts';
import type { OutsideErrors } from '../outside-errors.ts';
import { handleUpdateGuarded, updateIdOf } from './guarded-update.ts';
import { toDeliveryError, type Scrub } from './telegram-errors.ts';

/** grammy types signals with an old polyfill's class; Node's AbortSignal works the same. */
export type GrammySignal = NonNullable<Parameters<Bot['init']>[0]>;

/** Node's signal as grammy's parameter type. */
export function grammySignal(signal: AbortSignal): GrammySignal {
  return signal as unknown as GrammySignal;
}

/** Options of {@link runLongPolling}. */
export interface LongPollingOptions {
  /** getUpdates long-poll timeout in seconds. */
  timeoutSeconds: number;
  allowedUpdates: TelegramUpdateKind[];
  signal: AbortSignal;
  log(line: string): void;
  scrub: Scrub;
  /** Told when polling loses Telegram and finds it again, and of 429s. */
  link: LinkStatus;
  /** Where an update whose handling threw is reported (it is then dropped: the offset moves past it). */
  outside: OutsideErrors;
  /** The first pause after a failed poll, in ms, doubled per failure in a row up to 30 s. */
  firstRetryDelayMs: number;
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

/** The pause after `failures` failed polls in a row. */
function growingPause(firstMs: number, failures: number): number {
  return Math.min(firstMs * 2 ** Math.min(failures - 1, 6), 30_000);
}

/** How long to wait after a failed getUpdates, or undefined to give up (token refused). */
function backoffFor(error: unknown, failures: number, firstMs: number): number | undefined {
  if (error instanceof GrammyError) {
    if (error.error_code === 401 || error.error_code === 404) return undefined;
    if (error.error_code === 429) return (error.parameters.retry_after ?? 1) * 1000;
    if (error.error_code === 409) return 5_000;
  }
  return growingPause(firstMs, failures);
}

/** Whether a failed getUpdates means Telegram was not reached (network, 5xx) rather than a refusal. */
function isLinkFailure(error: unknown): boolean {
  return !(error instanceof GrammyError) || error.error_code >= 500;
}

/** Polls until `options.signal` aborts; resolves once the loop has ended and the offset is confirmed. */
export async function runLongPolling(bot: Bot, options: LongPollingOptions): Promise<void> {
  const { signal, log, scrub, link } = options;
  let offset: number | undefined;
  let failures = 0;
  let handed = false;
  while (!signal.aborted) {
    // The turns of updates just handed over go first to their first wait (their model call is
    // written out) before the next poll is: written first, it sat on each new turn's path.
    if (handed) await new Promise((resolve) => setImmediate(resolve));
    handed = false;
    let updates;
    try {
      updates = await bot.api.getUpdates({ offset, timeout: options.timeoutSeconds, allowed_updates: options.allowedUpdates }, grammySignal(signal));
      failures = 0;
      link.restored();
    } catch (error) {
      if (signal.aborted) break;
      failures += 1;
      const wait = backoffFor(error, failures, options.firstRetryDelayMs);
      const reason = error instanceof Error ? error.message : String(error);
      if (wait === undefined) {
        log(scrub(`telegram: long polling stopped: ${reason}`));
        // Nothing arrives any more: the link is gone for good, whatever the cause.
        link.lost(`long polling stopped: ${toDeliveryError(error, 'getUpdates', scrub).message}`);
        return;
      }
      if (error instanceof GrammyError && error.error_code === 429) link.rateLimited(wait);
      else if (isLinkFailure(error)) link.lost(toDeliveryError(error, 'getUpdates', scrub).message);
      log(scrub(`telegram: getUpdates failed (${reason}); retrying in ${wait} ms`));
      await pause(wait, signal);
      continue;
    }
    let unconfirmable = 0;
    for (const update of updates as unknown[]) {
      const id = updateIdOf(update);
      if (id === undefined) {
        // Nothing to confirm it by: skipped; the next update's offset confirms it with the rest.
        options.outside.report('update', new TypeError('an update without an integer update_id'));
        unconfirmable += 1;
        continue;
      }
      // Whatever its handling throws stops here (reported; the update is dropped): the loop, the
      // link and every other update go on.
      const refused = await handleUpdateGuarded(bot, update, options.outside);
      if (refused) {
        // Not taken now: the offset stays on this update, so the next poll brings it again.
        failures += 1;
        const wait = growingPause(options.firstRetryDelayMs, failures);
        log(scrub(`telegram: update ${id} left for the next poll (${refused.message}); polling again in ${wait} ms`));
        await pause(wait, signal);
        break;
      }
      offset = id + 1;
      handed = true;
    }
    // A batch of nothing but such updates would come back at once: not in a tight loop.
    if (unconfirmable > 0 && unconfirmable === updates.length) await pause(growingPause(options.firstRetryDelayMs, 1), signal);
  }
  if (offset !== undefined) {
    await bot.api.getUpdates({ offset, limit: 1, timeout: 0 }, grammySignal(AbortSignal.timeout(2_000))).catch(() => undefined);
  }
}
