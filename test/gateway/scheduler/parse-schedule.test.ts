import { describe, expect, it } from 'vitest';
import { describeNextRun, parseSchedule, ScheduleError, type ScheduleArguments } from '../../../src/gateway/scheduler/index.ts';
import { start } from './harness.ts';

const context = { now: start, timezone: 'Europe/Berlin', minIntervalMs: 5 * 60_000 };

/** The message parseSchedule refuses `args` with (failing the test if it accepts them). */
function refusal(args: ScheduleArguments): string {
  try {
    parseSchedule(args, context);
  } catch (error) {
    expect(error).toBeInstanceOf(ScheduleError);
    expect((error as ScheduleError).code).toBe('invalid');
    return (error as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(args)}`);
}

describe('parseSchedule', () => {
  it('takes at with an offset or Z, in any of the ISO forms', () => {
    expect(parseSchedule({ at: '2026-11-25T09:00:00+01:00' }, context)).toEqual({
      schedule: { kind: 'at', at: Date.parse('2026-11-25T08:00:00Z') },
      timezone: 'Europe/Berlin',
      nextRunAt: Date.parse('2026-11-25T08:00:00Z'),
    });
    expect(parseSchedule({ at: '2026-11-25T08:00Z' }, context).nextRunAt).toBe(Date.parse('2026-11-25T08:00:00Z'));
    expect(parseSchedule({ at: '2026-11-25 03:00:00.500-0500' }, context).nextRunAt).toBe(Date.parse('2026-11-25T08:00:00.500Z'));
  });

  it('takes delay_seconds as seconds from now, also as a numeric string', () => {
    expect(parseSchedule({ delay_seconds: 1200 }, context).nextRunAt).toBe(start + 1_200_000);
    expect(parseSchedule({ delay_seconds: '90' }, context).schedule).toEqual({ kind: 'at', at: start + 90_000 });
  });

  it('takes every as a duration anchored at the first run', () => {
    expect(parseSchedule({ every: '1h30m', repeat: 3 }, context)).toEqual({
      schedule: { kind: 'every', everyMs: 5_400_000, anchor: start + 5_400_000 },
      timezone: 'Europe/Berlin',
      repeat: 3,
      nextRunAt: start + 5_400_000,
    });
    expect(parseSchedule({ every: '1d' }, context).nextRunAt).toBe(start + 86_400_000);
    expect(parseSchedule({ every: '5m' }, context).nextRunAt).toBe(start + 300_000);
  });

  it('takes a 5-field cron read in the given or the default timezone', () => {
    // 13:00 in Berlin now: the next 09:00 there is tomorrow, 08:00 UTC.
    expect(parseSchedule({ cron: '0 9 * * *' }, context).nextRunAt).toBe(Date.parse('2026-11-25T08:00:00Z'));
    const newYork = parseSchedule({ cron: ' 0  9 * * 1-5 ', timezone: 'America/New_York' }, context);
    expect(newYork.schedule).toEqual({ kind: 'cron', expression: '0 9 * * 1-5' });
    expect(newYork.timezone).toBe('America/New_York');
    expect(newYork.nextRunAt).toBe(Date.parse('2026-11-24T14:00:00Z'));
  });

  it('treats null and empty strings as arguments not given', () => {
    expect(parseSchedule({ at: null, delay_seconds: 60, every: '', cron: null, timezone: null, repeat: null }, context).nextRunAt).toBe(start + 60_000);
  });

  it('names conflicting or missing schedule arguments', () => {
    expect(refusal({ at: '2026-11-25T09:00Z', cron: '0 9 * * *' })).toBe('give exactly one of at, delay_seconds, every, cron; got at and cron');
    expect(refusal({ delay_seconds: 5, every: '1h', cron: '0 9 * * *' })).toBe('give exactly one of at, delay_seconds, every, cron; got delay_seconds, every and cron');
    expect(refusal({})).toBe('give exactly one of at, delay_seconds, every, cron; got none of them');
  });

  it('refuses a time without an offset, suggesting the zone offset at that time', () => {
    expect(refusal({ at: '2026-11-25T09:00' })).toBe(
      'at "2026-11-25T09:00" has no UTC offset, so it is ambiguous; add one, e.g. "2026-11-25T09:00+01:00" for Europe/Berlin, or "Z" for UTC',
    );
    expect(refusal({ at: '2026-07-01T09:00:00', timezone: 'Europe/Berlin' })).toContain('"2026-07-01T09:00:00+02:00" for Europe/Berlin');
  });

  it('refuses at that is not an ISO date-time, not a real date, or not a string', () => {
    expect(refusal({ at: 'tomorrow at 9' })).toBe(
      'at "tomorrow at 9" is not an ISO 8601 date and time with a UTC offset; use the form e.g. "2026-11-25T13:00+01:00"',
    );
    expect(refusal({ at: '2026-02-30T09:00Z' })).toBe('at "2026-02-30T09:00Z" is not a valid date and time');
    expect(refusal({ at: '2026-11-25T24:00Z' })).toBe('at "2026-11-25T24:00Z" is not a valid date and time');
    expect(refusal({ at: 1764000000 })).toBe('at must be an ISO 8601 date and time with a UTC offset, e.g. "2026-11-25T13:00+01:00"; got 1764000000');
  });

  it('refuses a time in the past, saying what time it is', () => {
    expect(refusal({ at: '2026-11-24T12:59:00+01:00' })).toBe('at 2026-11-24T12:59:00+01:00 is in the past (now is 2026-11-24T13:00:00+01:00 in Europe/Berlin)');
    expect(refusal({ at: '2026-11-24T12:00:00Z' })).toContain('is in the past');
    expect(refusal({ at: '2040-01-01T00:00Z' })).toBe('at 2040-01-01T00:00Z is more than 10 years ahead');
  });

  it('refuses a delay that is not a positive number', () => {
    expect(refusal({ delay_seconds: 0 })).toBe('delay_seconds must be a positive number of seconds, got 0');
    expect(refusal({ delay_seconds: -5 })).toBe('delay_seconds must be a positive number of seconds, got -5');
    expect(refusal({ delay_seconds: '20 minutes' })).toBe('delay_seconds must be a positive number of seconds, got "20 minutes"');
    expect(refusal({ delay_seconds: Number.POSITIVE_INFINITY })).toBe('delay_seconds must be a positive number of seconds, got Infinity');
    expect(refusal({ delay_seconds: 1e12 })).toBe('delay_seconds 1000000000000 is more than 10 years');
  });

  it('refuses every that is not a duration, or shorter than the minimum interval', () => {
    const format = 'whole numbers with units d, h, m or s, largest first (e.g. 30m, 2h, 1d, 1h30m)';
    expect(refusal({ every: 'weekly' })).toBe(`every must be a duration: ${format}; got "weekly"`);
    expect(refusal({ every: '30m2h' })).toBe(`every must be a duration: ${format}; got "30m2h"`);
    expect(refusal({ every: 3600 })).toBe(`every must be a duration: ${format}; got 3600`);
    expect(refusal({ every: '30s' })).toBe('every 30s is shorter than the minimum interval for recurring jobs (5m)');
    expect(refusal({ every: '0m' })).toBe('every 0s is shorter than the minimum interval for recurring jobs (5m)');
  });

  it('refuses cron with other than 5 fields, saying seconds and years are not supported', () => {
    const format = '5 fields: minute hour day-of-month month day-of-week, e.g. "0 9 * * 1-5" (09:00 on weekdays)';
    expect(refusal({ cron: '0 0 9 * * *' })).toBe(`cron "0 0 9 * * *" has 6 fields (seconds and years fields are not supported); it takes exactly ${format}`);
    expect(refusal({ cron: '0 0 9 * * * 2027' })).toContain('has 7 fields (seconds and years fields are not supported)');
    expect(refusal({ cron: '@daily' })).toBe(`cron "@daily" has 1 field; it takes exactly ${format}`);
    expect(refusal({ cron: 5 })).toBe(`cron must be an expression of ${format}; got 5`);
  });

  it("refuses an invalid cron with croner's reason", () => {
    expect(refusal({ cron: '61 9 * * *' })).toBe('cron "61 9 * * *" is invalid: Invalid value for minute: 61');
    expect(refusal({ cron: 'a 9 * * *' })).toBe('cron "a 9 * * *" is invalid: configuration entry 1 (a) contains illegal characters.');
    expect(refusal({ cron: '0 0 31 2 *' })).toBe('cron "0 0 31 2 *" never matches a date');
  });

  it('refuses a cron that runs closer together than the minimum interval at any of its next runs', () => {
    expect(refusal({ cron: '*/2 * * * *' })).toBe('cron "*/2 * * * *" runs 2m apart at times; the minimum interval for recurring jobs is 5m');
    // Hourly at :00 and :03: the gap shows only between those two.
    expect(refusal({ cron: '0,3 * * * *' })).toBe('cron "0,3 * * * *" runs 3m apart at times; the minimum interval for recurring jobs is 5m');
    expect(parseSchedule({ cron: '*/5 * * * *' }, context).nextRunAt).toBe(start + 300_000);
  });

  it('refuses an unknown timezone', () => {
    const reason = 'is not a known IANA zone; use a name such as "Europe/Berlin", "America/New_York" or "UTC" (not an offset or an abbreviation)';
    expect(refusal({ cron: '0 9 * * *', timezone: 'Mars/Olympus' })).toBe(`timezone "Mars/Olympus" ${reason}`);
    expect(refusal({ cron: '0 9 * * *', timezone: '+01:00' })).toBe(`timezone "+01:00" ${reason}`);
    // Offsets in other spellings, which Node 22 and newer read as offset zones in Intl.
    expect(refusal({ cron: '0 9 * * *', timezone: '-0500' })).toBe(`timezone "-0500" ${reason}`);
    expect(refusal({ cron: '0 9 * * *', timezone: ' +01' })).toBe(`timezone "+01" ${reason}`);
    expect(refusal({ cron: '0 9 * * *', timezone: 1 })).toBe('timezone must be an IANA zone name such as "Europe/Berlin", got 1');
  });

  it('refuses repeat for one-shot jobs and anything but a positive whole number', () => {
    expect(refusal({ delay_seconds: 60, repeat: 2 })).toBe('repeat applies only to every and cron; a job given at or delay_seconds runs once');
    expect(refusal({ at: '2026-11-25T09:00Z', repeat: 1 })).toBe('repeat applies only to every and cron; a job given at or delay_seconds runs once');
    expect(refusal({ every: '1h', repeat: 0 })).toBe('repeat must be a positive whole number of runs, got 0');
    expect(refusal({ every: '1h', repeat: 2.5 })).toBe('repeat must be a positive whole number of runs, got 2.5');
    expect(refusal({ every: '1h', repeat: 'twice' })).toBe('repeat must be a positive whole number of runs, got "twice"');
    expect(parseSchedule({ every: '1h', repeat: '4' }, context).repeat).toBe(4);
  });
});

describe('describeNextRun', () => {
  it('gives words relative to now with the local time, and ISO with the offset of that date', () => {
    expect(describeNextRun(start + 20 * 60_000, 'Europe/Berlin', start)).toEqual({
      words: 'in 20 minutes (Tue 24 Nov 2026 13:20 Europe/Berlin)',
      iso: '2026-11-24T13:20:00+01:00',
    });
    expect(describeNextRun(Date.parse('2027-07-01T07:00:00Z'), 'Europe/Berlin', Date.parse('2027-06-28T05:00:00Z'))).toEqual({
      words: 'in 3 days 2 hours (Thu 1 Jul 2027 09:00 Europe/Berlin)',
      iso: '2027-07-01T09:00:00+02:00',
    });
    expect(describeNextRun(start, 'UTC', start).words).toBe('now (Tue 24 Nov 2026 12:00 UTC)');
    expect(describeNextRun(start, 'UTC', start).iso).toBe('2026-11-24T12:00:00+00:00');
  });

  it('rounds each unit before choosing it', () => {
    const words = (ms: number) => describeNextRun(start + ms, 'UTC', start).words.split(' (')[0];
    expect(words(45_000)).toBe('in 45 seconds');
    expect(words(59_600)).toBe('in 1 minute');
    expect(words(59 * 60_000 + 40_000)).toBe('in 1 hour');
    expect(words(3 * 3_600_000 + 10 * 60_000)).toBe('in 3 hours 10 minutes');
    expect(words(86_400_000)).toBe('in 1 day');
  });
});
