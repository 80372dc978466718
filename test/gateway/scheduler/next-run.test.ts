import { describe, expect, it } from 'vitest';
import { latestRunAtOrBefore, nextRunAfter, type JobSchedule } from '../../../src/gateway/scheduler/index.ts';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
const at = (text: string) => Date.parse(text);

/** The next `count` runs strictly after `from`, in UTC. */
function upcoming(schedule: JobSchedule, timezone: string, from: string, count: number): (string | null)[] {
  const times: (string | null)[] = [];
  let after = at(from);
  for (let index = 0; index < count; index++) {
    const next = nextRunAfter(schedule, timezone, after);
    times.push(iso(next));
    if (next === null) break;
    after = next;
  }
  return times;
}

describe('nextRunAfter', () => {
  it('runs an at schedule once, strictly after the given time', () => {
    const schedule: JobSchedule = { kind: 'at', at: at('2026-11-25T08:00:00Z') };
    expect(iso(nextRunAfter(schedule, 'UTC', at('2026-11-25T07:59:59.999Z')))).toBe('2026-11-25T08:00:00.000Z');
    expect(nextRunAfter(schedule, 'UTC', at('2026-11-25T08:00:00Z'))).toBeNull();
  });

  it('keeps every on the grid of its anchor, however late it is asked', () => {
    const schedule: JobSchedule = { kind: 'every', everyMs: 3_600_000, anchor: at('2026-11-24T12:30:00Z') };
    expect(iso(nextRunAfter(schedule, 'UTC', at('2026-11-24T12:00:00Z')))).toBe('2026-11-24T12:30:00.000Z');
    expect(iso(nextRunAfter(schedule, 'UTC', at('2026-11-24T12:30:00Z')))).toBe('2026-11-24T13:30:00.000Z');
    // Asked 47 minutes late: the next run stays at :30.
    expect(iso(nextRunAfter(schedule, 'UTC', at('2026-11-24T14:17:00Z')))).toBe('2026-11-24T14:30:00.000Z');
  });

  it('runs every as elapsed time across a DST change (the wall-clock time shifts)', () => {
    const schedule: JobSchedule = { kind: 'every', everyMs: 86_400_000, anchor: at('2026-03-28T08:00:00Z') };
    expect(upcoming(schedule, 'Europe/Berlin', '2026-03-28T07:00:00Z', 2)).toEqual(['2026-03-28T08:00:00.000Z', '2026-03-29T08:00:00.000Z']);
  });

  it('reads cron in the timezone, keeping the wall-clock time across DST', () => {
    const schedule: JobSchedule = { kind: 'cron', expression: '0 9 * * *' };
    // Berlin springs forward on 29 March 2026: 09:00 is 08:00 UTC before and 07:00 UTC after.
    expect(upcoming(schedule, 'Europe/Berlin', '2026-03-27T12:00:00Z', 3)).toEqual([
      '2026-03-28T08:00:00.000Z',
      '2026-03-29T07:00:00.000Z',
      '2026-03-30T07:00:00.000Z',
    ]);
    // New York falls back on 1 November 2026.
    expect(upcoming(schedule, 'America/New_York', '2026-10-31T00:00:00Z', 2)).toEqual(['2026-10-31T13:00:00.000Z', '2026-11-01T14:00:00.000Z']);
  });

  it('runs a cron time inside the spring-forward gap once, right after the gap', () => {
    const schedule: JobSchedule = { kind: 'cron', expression: '30 2 * * *' };
    // 02:30 does not exist in Berlin on 29 March 2026 (02:00 -> 03:00).
    expect(upcoming(schedule, 'Europe/Berlin', '2026-03-28T00:00:00Z', 3)).toEqual([
      '2026-03-28T01:30:00.000Z',
      '2026-03-29T01:00:00.000Z',
      '2026-03-30T00:30:00.000Z',
    ]);
  });

  it('runs a fixed cron time that occurs twice at fall-back once, and an interval on both occurrences', () => {
    // 02:30 happens twice in Berlin on 25 October 2026 (03:00 -> 02:00).
    expect(upcoming({ kind: 'cron', expression: '30 2 * * *' }, 'Europe/Berlin', '2026-10-24T12:00:00Z', 2)).toEqual([
      '2026-10-25T00:30:00.000Z',
      '2026-10-26T01:30:00.000Z',
    ]);
    expect(upcoming({ kind: 'cron', expression: '*/30 * * * *' }, 'Europe/Berlin', '2026-10-25T00:00:00Z', 4)).toEqual([
      '2026-10-25T00:30:00.000Z',
      '2026-10-25T01:00:00.000Z',
      '2026-10-25T01:30:00.000Z',
      '2026-10-25T02:00:00.000Z',
    ]);
  });
});

describe('latestRunAtOrBefore', () => {
  it('finds the most recent scheduled time, the given time included', () => {
    expect(iso(latestRunAtOrBefore({ kind: 'at', at: at('2026-11-25T08:00:00Z') }, 'UTC', at('2026-11-25T08:00:00Z')))).toBe('2026-11-25T08:00:00.000Z');
    expect(latestRunAtOrBefore({ kind: 'at', at: at('2026-11-25T08:00:00Z') }, 'UTC', at('2026-11-25T07:00:00Z'))).toBeNull();
    const every: JobSchedule = { kind: 'every', everyMs: 3_600_000, anchor: at('2026-11-24T12:30:00Z') };
    expect(iso(latestRunAtOrBefore(every, 'UTC', at('2026-11-26T09:29:00Z')))).toBe('2026-11-26T08:30:00.000Z');
    expect(latestRunAtOrBefore(every, 'UTC', at('2026-11-24T12:29:00Z'))).toBeNull();
    const cron: JobSchedule = { kind: 'cron', expression: '0 9 * * *' };
    expect(iso(latestRunAtOrBefore(cron, 'Europe/Berlin', at('2026-03-29T07:00:00Z')))).toBe('2026-03-29T07:00:00.000Z');
    expect(iso(latestRunAtOrBefore(cron, 'Europe/Berlin', at('2026-03-29T06:59:00Z')))).toBe('2026-03-28T08:00:00.000Z');
  });
});
