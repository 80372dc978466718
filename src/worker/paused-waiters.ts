/**
 * The conversations whose messages wait for model calls to resume, on Workers. A conversation's
 * object does not try its waiting messages again by itself while calls are paused (its alarm is
 * not set again for them, so it does not retry in a loop), so the spend object, which refused its
 * call, notes it here and wakes it on `/budget resume`. A conversation is let go of before it is
 * woken, so one refused again meanwhile (paused once more) stays noted; one that could not be
 * reached is noted again and woken by the spend object's alarm a minute later.
 */
import { errorMessage } from '../core/errors.ts';
import type { WorkerEnv } from './worker-env.ts';

/** Where a waiting conversation is noted: this, then its session key (its object's name). */
const waiterPrefix = 'budget-waiting:';

/** How soon a conversation that could not be woken is tried again. */
const wakeRetryMs = 60_000;

/**
 * How many conversations one call wakes (each is a request to its object, and an invocation makes
 * a bounded number of them); the rest are woken by the spend object's alarm, a second later.
 */
export const wakePage = 200;

/** Notes that the conversation `sessionKey` has messages waiting for the resume. */
export function noteWaiting(kv: SyncKvStorage, sessionKey: string): void {
  kv.put(waiterPrefix + sessionKey, true);
}

/** Whether a conversation is noted as waiting. */
export function anyWaiting(kv: SyncKvStorage): boolean {
  return [...kv.list({ prefix: waiterPrefix, limit: 1 })].length > 0;
}

/**
 * Wakes the conversations noted as waiting ({@link wakePage} of them), each to answer its
 * messages; resolves to when the rest are to be woken (ms since the epoch), if any are left.
 */
export async function wakeWaiting(kv: SyncKvStorage, env: WorkerEnv): Promise<number | undefined> {
  const sessionKeys = [...kv.list({ prefix: waiterPrefix, limit: wakePage })].map(([key]) => key.slice(waiterPrefix.length));
  for (const sessionKey of sessionKeys) kv.delete(waiterPrefix + sessionKey);
  const woken = await Promise.allSettled(sessionKeys.map((sessionKey) => env.CONVERSATIONS.get(env.CONVERSATIONS.idFromName(sessionKey)).resumed()));
  let missed = 0;
  for (const [index, result] of woken.entries()) {
    if (result.status === 'fulfilled') continue;
    missed++;
    const sessionKey = sessionKeys[index]!;
    console.error(`spending: ${sessionKey} could not be told that model calls resumed (${errorMessage(result.reason)}); tried again in a minute`);
    noteWaiting(kv, sessionKey);
  }
  if (sessionKeys.length === wakePage && missed < wakePage) return Date.now() + 1_000;
  return missed > 0 ? Date.now() + wakeRetryMs : undefined;
}
