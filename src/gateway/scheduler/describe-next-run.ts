/**
 * A job's next run in words for people and the model, and in ISO 8601 for anything that reads it
 * back: `in 20 minutes (Tue 24 Nov 2026 14:05 Europe/Berlin)` and `2026-11-24T14:05:00+01:00`.
 */
import { formatIsoInZone, formatReadableInZone } from './zoned-time.ts';

/** A scheduled time, described. */
export interface NextRunDescription {
  /** Relative and local: `in 20 minutes (Tue 24 Nov 2026 14:05 Europe/Berlin)`. */
  words: string;
  /** ISO 8601 with the zone's offset at that time: `2026-11-24T14:05:00+01:00`. */
  iso: string;
}

/**
 * Describes the time `ms` as seen at `now`, in `timezone` (an IANA zone).
 *
 * @example
 * describeNextRun(Date.parse('2026-11-24T13:05:00Z'), 'Europe/Berlin', Date.parse('2026-11-24T12:45:00Z'));
 * // { words: 'in 20 minutes (Tue 24 Nov 2026 14:05 Europe/Berlin)', iso: '2026-11-24T14:05:00+01:00' }
 */
export function describeNextRun(ms: number, timezone: string, now: number): NextRunDescription {
  return { words: `${relative(ms - now)} (${formatReadableInZone(ms, timezone)})`, iso: formatIsoInZone(ms, timezone) };
}

/** `in 45 seconds`, `in 20 minutes`, `in 3 hours 10 minutes`, `in 2 days 4 hours`; `now` when due. */
function relative(ms: number): string {
  if (ms < 1_000) return 'now';
  // Each unit is rounded before it is compared, so 59.6 seconds reads `in 1 minute`, not `in 60 seconds`.
  const seconds = Math.round(ms / 1_000);
  if (seconds < 60) return `in ${count(seconds, 'second')}`;
  const minutes = Math.round(ms / 60_000);
  if (minutes < 60) return `in ${count(minutes, 'minute')}`;
  if (minutes < 24 * 60) return `in ${count(Math.floor(minutes / 60), 'hour')}${minutes % 60 ? ` ${count(minutes % 60, 'minute')}` : ''}`;
  const hours = Math.round(ms / 3_600_000);
  return `in ${count(Math.floor(hours / 24), 'day')}${hours % 24 ? ` ${count(hours % 24, 'hour')}` : ''}`;
}

function count(value: number, unit: string): string {
  return `${value} ${unit}${value === 1 ? '' : 's'}`;
}
