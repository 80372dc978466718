/**
 * The spend object's daily sweep: the counters of past days and months (`spend:<scope>:<period>`,
 * admins' raises, `spend-raise:...`, and the notes that a notice near a cap was given,
 * `spend-warned:...`) are dropped, so the one object for the whole bot does not
 * keep a key for every person and conversation of every day there ever was. A bounded page of
 * keys per run keeps the object from stalling; a bot with more goes on a minute later, from where
 * it stopped.
 */
import { periodOf } from '../gateway/budget/spend-book.ts';

/** How many keys one run looks at. */
export const sweepPage = 2_000;

/** Where a sweep that stopped mid-way notes the last key it looked at. */
const cursorKey = 'spend-sweep:cursor';

/** A stored counter's period, at the end of its key: `2026-11-30` or `2026-11`. */
const periodPattern = /:(\d{4}-\d{2}(?:-\d{2})?)$/;

/**
 * Drops the counters of periods before `now`'s (one page of them, see {@link sweepPage}); returns
 * to when the next run is due: a minute on when keys are left to look at, else just after the
 * next UTC midnight.
 */
export function sweepPastSpend(kv: SyncKvStorage, now: Date): number {
  const today = periodOf('day', now);
  const month = periodOf('month', now);
  const cursor = kv.get<string>(cursorKey);
  // Read first, deleted after: the listing is not changed under its own feet.
  const keys = [...kv.list({ prefix: 'spend', limit: sweepPage, ...(cursor !== undefined && { startAfter: cursor }) })].map(([key]) => key);
  for (const key of keys) if (isPast(key, today, month)) kv.delete(key);
  if (keys.length === sweepPage) {
    kv.put(cursorKey, keys.at(-1));
    return now.getTime() + 60_000;
  }
  kv.delete(cursorKey);
  const midnight = new Date(now);
  midnight.setUTCHours(24, 1, 0, 0);
  return midnight.getTime();
}

/** Whether `key` is a counter (a raise, a notice's note) of a day before `today` or a month before `month`. */
function isPast(key: string, today: string, month: string): boolean {
  if (!key.startsWith('spend:') && !key.startsWith('spend-raise:') && !key.startsWith('spend-warned:')) return false;
  const period = periodPattern.exec(key)?.[1];
  if (period === undefined) return false;
  // ISO dates compare as text.
  return period.length === today.length ? period < today : period < month;
}
