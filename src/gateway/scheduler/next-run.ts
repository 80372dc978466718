/**
 * The scheduled times of a job: the next one strictly after an instant, and the latest one at or
 * before it (to tell how late a missed run is). Cron expressions and time zones, including DST
 * changes, are croner's: a fixed time that falls into a DST gap runs at the first time after the
 * gap and once when it occurs twice; an interval pattern (`*\/30 * * * *`) runs on both.
 */
import { Cron } from 'croner';
import type { JobSchedule } from './job.ts';

/**
 * Parsed patterns, by zone and expression. A croner `Cron` holds its expanded fields (kilobytes),
 * so jobs do not keep one each; the patterns in use are few, and the cap only guards a flood.
 */
const patterns = new Map<string, Cron>();
const maxPatterns = 512;

/**
 * The croner pattern of a 5-field `expression` in `timezone`, from the cache. Throws croner's
 * error for an invalid expression.
 */
export function cronPattern(expression: string, timezone: string): Cron {
  const key = `${timezone} ${expression}`;
  let found = patterns.get(key);
  if (!found) {
    found = new Cron(expression, { timezone, mode: '5-part' });
    if (patterns.size >= maxPatterns) patterns.clear();
    patterns.set(key, found);
  }
  return found;
}

/** The first scheduled time strictly after `after`, or `null` when there is none. */
export function nextRunAfter(schedule: JobSchedule, timezone: string, after: number): number | null {
  switch (schedule.kind) {
    case 'at':
      return schedule.at > after ? schedule.at : null;
    case 'every':
      if (after < schedule.anchor) return schedule.anchor;
      return schedule.anchor + (Math.floor((after - schedule.anchor) / schedule.everyMs) + 1) * schedule.everyMs;
    case 'cron':
      return cronPattern(schedule.expression, timezone).nextRun(new Date(after))?.getTime() ?? null;
  }
}

/** The last scheduled time at or before `at`, or `null` when there is none. */
export function latestRunAtOrBefore(schedule: JobSchedule, timezone: string, at: number): number | null {
  switch (schedule.kind) {
    case 'at':
      return schedule.at <= at ? schedule.at : null;
    case 'every':
      if (at < schedule.anchor) return null;
      return schedule.anchor + Math.floor((at - schedule.anchor) / schedule.everyMs) * schedule.everyMs;
    case 'cron': {
      // croner's reference is exclusive; cron times are whole minutes, so one millisecond later includes `at`.
      const [latest] = cronPattern(schedule.expression, timezone).previousRuns(1, new Date(at + 1));
      return latest?.getTime() ?? null;
    }
  }
}

/** True for a schedule that runs more than once. */
export function isRecurring(schedule: JobSchedule): boolean {
  return schedule.kind !== 'at';
}
