/**
 * A small getUpdates loop instead of grammy's `bot.start()`, so stopping is prompt: the held
 * long poll and every back-off wait end as soon as the signal aborts. Each batch is handed to
 * grammy's `handleUpdate` (whose middleware only hands events over), and the offset advances past
 * every update handed over; the last offset is confirmed when polling stops.
 */
import { GrammyError, type Bot } from 'grammy/web';
import type { Scrub } from './telegram-errors.ts';
import { notAccepted } from './webhook.ts';

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
  allowedUpdates: ('message' | 'callback_query')[];
  signal: AbortSignal;
  log(line: string): void;
  scrub: Scrub;
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

/** How long to wait after a failed getUpdates, or undefined to give up (token refused). */
function backoffFor(error: unknown, failures: number): number | undefined {
  if (error instanceof GrammyError) {
    if (error.error_code === 401 || error.error_code === 404) return undefined;
    if (error.error_code === 429) return (error.parameters.retry_after ?? 1) * 1000;
    if (error.error_code === 409) return 5_000;
  }
  return Math.min(500 * 2 ** Math.min(failures - 1, 6), 30_000);
}

/** Polls until `options.signal` aborts; resolves once the loop has ended and the offset is confirmed. */
export async function runLongPolling(bot: Bot, options: LongPollingOptions): Promise<void> {
  const { signal, log, scrub } = options;
  let offset: number | undefined;
  let failures = 0;
  while (!signal.aborted) {
    let updates;
    try {
      updates = await bot.api.getUpdates({ offset, timeout: options.timeoutSeconds, allowed_updates: options.allowedUpdates }, grammySignal(signal));
      failures = 0;
    } catch (error) {
      if (signal.aborted) break;
      failures += 1;
      const wait = backoffFor(error, failures);
      const reason = error instanceof Error ? error.message : String(error);
      if (wait === undefined) {
        log(scrub(`telegram: long polling stopped: ${reason}`));
        return;
      }
      log(scrub(`telegram: getUpdates failed (${reason}); retrying in ${wait} ms`));
      await pause(wait, signal);
      continue;
    }
    for (const update of updates) {
      const refused = await bot.handleUpdate(update).then(
        () => undefined,
        (error: unknown) => {
          const notTaken = notAccepted(error);
          if (!notTaken) log(scrub(`telegram: update ${update.update_id} not handled: ${String(error)}`));
          return notTaken;
        },
      );
      if (refused) {
        // Not taken now: the offset stays on this update, so the next poll brings it again.
        failures += 1;
        const wait = Math.min(500 * 2 ** Math.min(failures - 1, 6), 30_000);
        log(scrub(`telegram: update ${update.update_id} left for the next poll (${refused.message}); polling again in ${wait} ms`));
        await pause(wait, signal);
        break;
      }
      offset = update.update_id + 1;
    }
  }
  if (offset !== undefined) {
    await bot.api.getUpdates({ offset, limit: 1, timeout: 0 }, grammySignal(AbortSignal.timeout(2_000))).catch(() => undefined);
  }
}
