/**
 * Turns the `schedule` tool's create arguments into a schedule, or refuses them with a message
 * precise enough for the model to correct its call. Arguments arrive as the model wrote them, so
 * each is checked for its type here; `null` and `''` count as not given (models send them for
 * optional arguments they do not use).
 */
import { durationFormat, formatDuration, parseDuration } from './duration.ts';
import type { JobSchedule } from './job.ts';
import { cronPattern, isRecurring, nextRunAfter } from './next-run.ts';
import { ScheduleError } from './schedule-error.ts';
import { formatIsoInZone, isValidTimezone, offsetInZone } from './zoned-time.ts';

/** The tool's schedule arguments, unchecked. Exactly one of `at`, `delay_seconds`, `every`, `cron`. */
export interface ScheduleArguments {
  /** ISO 8601 date and time with a UTC offset or `Z`: `2026-11-25T09:00:00+01:00`. */
  at?: unknown;
  /** Seconds from now (a positive number). */
  delay_seconds?: unknown;
  /** A duration of {@link durationFormat}, at least the minimum interval. */
  every?: unknown;
  /** A 5-field cron expression (minute hour day-of-month month day-of-week). */
  cron?: unknown;
  /** IANA zone the schedule is read in (cron) and times are shown in; default the configured one. */
  timezone?: unknown;
  /** How many runs in all (recurring schedules only). */
  repeat?: unknown;
}

/** What {@link parseSchedule} checks against. */
export interface ScheduleContext {
  /** The current time, in milliseconds since the epoch. */
  now: number;
  /** The zone used when the arguments name none. */
  timezone: string;
  /** The shortest gap allowed between two runs of a recurring job. */
  minIntervalMs: number;
}

/** A checked schedule and its first run. */
export interface ParsedSchedule {
  schedule: JobSchedule;
  timezone: string;
  repeat?: number;
  nextRunAt: number;
}

const kinds = ['at', 'delay_seconds', 'every', 'cron'] as const;

/** How far ahead a one-shot job may be set: further is surely a mistake (a wrong year, seconds for ms). */
const maxAheadMs = 10 * 366 * 86_400_000;

/**
 * How many upcoming runs of a cron expression are checked against the minimum interval. Each costs
 * croner about 0.1 ms in a time zone; 24 cover every pattern of up to 24 runs a day, and a closer
 * gap that first shows later (a contrived expression) only makes runs closer than the minimum,
 * which the scheduler copes with: runs of one job never overlap.
 */
const cronRunsChecked = 24;

/**
 * Checks the arguments and computes the first run. Throws a {@link ScheduleError} (`invalid`)
 * whose message names the argument and what would be accepted.
 *
 * `repeat` is refused with `at` and `delay_seconds` rather than ignored: such a job runs once, and
 * a model that asks for repeats of it has misunderstood something it should hear about.
 *
 * @example
 * parseSchedule({ every: '1h30m' }, { now: Date.now(), timezone: 'Europe/Berlin', minIntervalMs: 300_000 });
 * // { schedule: { kind: 'every', everyMs: 5_400_000, anchor: ... }, timezone: 'Europe/Berlin', nextRunAt: ... }
 */
export function parseSchedule(args: ScheduleArguments, context: ScheduleContext): ParsedSchedule {
  const given = kinds.filter((kind) => isGiven(args[kind]));
  if (given.length !== 1) {
    const got = given.length === 0 ? 'none of them' : `${given.slice(0, -1).join(', ')} and ${given.at(-1)}`;
    throw invalid(`give exactly one of at, delay_seconds, every, cron; got ${got}`);
  }
  const timezone = parseTimezone(args.timezone, context.timezone);
  const kind = given[0]!;
  const schedule = parseKind(kind, args[kind], timezone, context);
  const repeat = parseRepeat(args.repeat, schedule);
  // Not null: a time in the past and a cron expression that never matches were refused above.
  const nextRunAt = nextRunAfter(schedule, timezone, context.now)!;
  return repeat === undefined ? { schedule, timezone, nextRunAt } : { schedule, timezone, repeat, nextRunAt };
}

function parseKind(kind: (typeof kinds)[number], value: unknown, timezone: string, context: ScheduleContext): JobSchedule {
  switch (kind) {
    case 'at':
      return { kind: 'at', at: parseAt(value, timezone, context.now) };
    case 'delay_seconds':
      return { kind: 'at', at: context.now + parseDelay(value) };
    case 'every': {
      const everyMs = parseEvery(value, context.minIntervalMs);
      // Anchored at the first run: later runs stay on its grid however late one of them is.
      return { kind: 'every', everyMs, anchor: context.now + everyMs };
    }
    case 'cron':
      return { kind: 'cron', expression: parseCron(value, timezone, context) };
  }
}

function parseTimezone(value: unknown, fallback: string): string {
  if (!isGiven(value)) return fallback;
  if (typeof value !== 'string') throw invalid(`timezone must be an IANA zone name such as "Europe/Berlin", got ${describe(value)}`);
  const timezone = value.trim();
  if (!isValidTimezone(timezone)) {
    throw invalid(`timezone ${JSON.stringify(timezone)} is not a known IANA zone; use a name such as "Europe/Berlin", "America/New_York" or "UTC" (not an offset or an abbreviation)`);
  }
  return timezone;
}

/** ISO 8601 date-time: groups year, month, day, hour, minute, second, fraction, offset. */
const isoDateTime = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?([Zz]|[+-]\d{2}(?::?\d{2})?)?$/;

function parseAt(value: unknown, timezone: string, now: number): number {
  // Tomorrow at this time in the zone, with its offset: a form the model can copy.
  const example = () => `e.g. "${formatIsoInZone(now + 86_400_000, timezone).slice(0, 16)}${offsetInZone(now + 86_400_000, timezone)}"`;
  if (typeof value !== 'string') throw invalid(`at must be an ISO 8601 date and time with a UTC offset, ${example()}; got ${describe(value)}`);
  const text = value.trim();
  const match = isoDateTime.exec(text);
  if (!match) throw invalid(`at ${JSON.stringify(text)} is not an ISO 8601 date and time with a UTC offset; use the form ${example()}`);
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map((part) => Number(part ?? 0)) as [number, number, number, number, number, number];
  const fraction = Math.round(Number(`0.${match[7] ?? '0'}`) * 1000);
  const wallClock = Date.UTC(year, month - 1, day, hour, minute, second, fraction);
  const check = new Date(wallClock);
  // Date.UTC rolls over (Feb 30 becomes Mar 2); a date that does not round-trip does not exist.
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59) {
    throw invalid(`at ${JSON.stringify(text)} is not a valid date and time`);
  }
  const offset = match[8];
  if (offset === undefined) {
    // The offset the zone has at about that wall-clock time, as a hint the model can copy.
    const hint = offsetInZone(wallClock - offsetMs(offsetInZone(wallClock, timezone)), timezone);
    throw invalid(`at ${JSON.stringify(text)} has no UTC offset, so it is ambiguous; add one, e.g. "${text}${hint}" for ${timezone}, or "Z" for UTC`);
  }
  const at = wallClock - offsetMs(offset);
  if (at <= now) throw invalid(`at ${text} is in the past (now is ${formatIsoInZone(now, timezone)} in ${timezone})`);
  if (at - now > maxAheadMs) throw invalid(`at ${text} is more than 10 years ahead`);
  return at;
}

/** `Z`, `+01`, `+0100` or `+01:00` in milliseconds east of UTC. */
function offsetMs(offset: string): number {
  if (offset === 'Z' || offset === 'z') return 0;
  const digits = offset.slice(1).replace(':', '');
  const minutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || 0);
  return (offset.startsWith('-') ? -1 : 1) * minutes * 60_000;
}

function parseDelay(value: unknown): number {
  const seconds = typeof value === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(value) ? Number(value) : value;
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds <= 0) {
    throw invalid(`delay_seconds must be a positive number of seconds, got ${describe(value)}`);
  }
  const ms = Math.round(seconds * 1000);
  if (ms > maxAheadMs) throw invalid(`delay_seconds ${seconds} is more than 10 years`);
  return Math.max(1, ms);
}

function parseEvery(value: unknown, minIntervalMs: number): number {
  const everyMs = typeof value === 'string' ? parseDuration(value) : undefined;
  if (everyMs === undefined) throw invalid(`every must be a duration: ${durationFormat}; got ${describe(value)}`);
  if (everyMs < minIntervalMs) {
    throw invalid(`every ${formatDuration(everyMs)} is shorter than the minimum interval for recurring jobs (${formatDuration(minIntervalMs)})`);
  }
  return everyMs;
}

function parseCron(value: unknown, timezone: string, { now, minIntervalMs }: ScheduleContext): string {
  const format = '5 fields: minute hour day-of-month month day-of-week, e.g. "0 9 * * 1-5" (09:00 on weekdays)';
  if (typeof value !== 'string') throw invalid(`cron must be an expression of ${format}; got ${describe(value)}`);
  const expression = value.trim().split(/\s+/).join(' ');
  const fields = expression.split(' ').length;
  if (fields !== 5) {
    const why = fields > 5 ? ' (seconds and years fields are not supported)' : '';
    throw invalid(`cron ${JSON.stringify(expression)} has ${fields} field${fields === 1 ? '' : 's'}${why}; it takes exactly ${format}`);
  }
  let runs: Date[];
  try {
    runs = cronPattern(expression, timezone).nextRuns(cronRunsChecked, new Date(now));
  } catch (error) {
    const reason = (error instanceof Error ? error.message : String(error)).replace(/^CronPattern:\s*/, '');
    throw invalid(`cron ${JSON.stringify(expression)} is invalid: ${reason}`);
  }
  if (runs.length === 0) throw invalid(`cron ${JSON.stringify(expression)} never matches a date`);
  for (let index = 1; index < runs.length; index++) {
    const gap = runs[index]!.getTime() - runs[index - 1]!.getTime();
    if (gap < minIntervalMs) {
      throw invalid(`cron ${JSON.stringify(expression)} runs ${formatDuration(gap)} apart at times; the minimum interval for recurring jobs is ${formatDuration(minIntervalMs)}`);
    }
  }
  return expression;
}

function parseRepeat(value: unknown, schedule: JobSchedule): number | undefined {
  if (!isGiven(value)) return undefined;
  if (!isRecurring(schedule)) throw invalid('repeat applies only to every and cron; a job given at or delay_seconds runs once');
  const repeat = typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : value;
  if (typeof repeat !== 'number' || !Number.isSafeInteger(repeat) || repeat < 1) {
    throw invalid(`repeat must be a positive whole number of runs, got ${describe(value)}`);
  }
  return repeat;
}

function isGiven(value: unknown): boolean {
  return value !== undefined && value !== null && value !== '';
}

/** An argument as it appears in a message: strings quoted, numbers as is, anything else with its type. */
function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  const json = JSON.stringify(value) ?? String(value);
  return `${Array.isArray(value) ? 'array' : typeof value} ${json.length > 60 ? `${json.slice(0, 57)}...` : json}`;
}

function invalid(message: string): ScheduleError {
  return new ScheduleError('invalid', message);
}
