/**
 * A job keeps the seat of the turn that set it, across restarts, and
 * hands it to its runs unchanged (a pause, a resume and a claim keep it). A job stored before seats
 * were kept has none, and is read as the least seat.
 */
import { describe, expect, it } from 'vitest';
import { leastSeat, ownerSeat, readSeat, type TurnSeat } from '../../../src/tools/turn-seat.ts';
import { ada, admin, Harness, newJob, storeKinds } from './harness.ts';

const groupSeat: TurnSeat = { owner: false, groups: ['read', 'shell'], workspace: 'shared' };

describe.each(storeKinds)('a job\'s seat on the $name', (kind) => {
  it('is kept with the job, through a restart, a pause and a resume, and reaches its run', async () => {
    const { store, reopen } = await kind.open();
    const before = new Harness({ store });
    await before.scheduler.start();
    const { job } = await before.scheduler.create(newJob({ delay_seconds: 600, seat: groupSeat }), ada);
    const { job: owners } = await before.scheduler.create(newJob({ delay_seconds: 600, seat: ownerSeat }), admin);
    await before.scheduler.pause(job.id, ada);
    await before.scheduler.stop();

    const after = new Harness({ store: reopen() });
    await after.scheduler.start();
    expect(after.scheduler.get(job.id)?.seat).toEqual(groupSeat);
    expect(after.scheduler.get(owners.id)?.seat).toEqual(ownerSeat);
    await after.scheduler.resume(job.id, ada);
    await after.advance(600_000);
    expect(after.runs.map((call) => [call.job.id, call.job.seat])).toEqual(
      expect.arrayContaining([
        [job.id, groupSeat],
        [owners.id, ownerSeat],
      ]),
    );
    await after.scheduler.stop();
  });
});

describe('a job stored before seats were kept', () => {
  it('has no seat, which its run reads as the least seat', async () => {
    const { store, reopen } = await storeKinds[1]!.open();
    const before = new Harness({ store });
    await before.scheduler.start();
    const { job } = await before.scheduler.create(newJob({ delay_seconds: 60, seat: ownerSeat }), admin);
    await before.scheduler.stop();
    // The record as an earlier version wrote it: no seat.
    const { seat: _seat, ...old } = job;
    await store.append('schedule:log:0', JSON.stringify({ j: old }));

    const after = new Harness({ store: reopen() });
    await after.scheduler.start();
    await after.advance(60_000);
    expect(after.runs).toHaveLength(1);
    expect(after.runs[0]!.job.seat).toBeUndefined();
    expect(readSeat(after.runs[0]!.job.seat)).toEqual(leastSeat);
    await after.scheduler.stop();
  });
});
