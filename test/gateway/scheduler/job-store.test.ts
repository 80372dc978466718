import { describe, expect, it } from 'vitest';
import { openJobStore, type Job } from '../../../src/gateway/scheduler/index.ts';
import { start, storeKinds, target } from './harness.ts';

function job(id: string, changes: Partial<Job> = {}): Job {
  return {
    id,
    prompt: `prompt of ${id}`,
    schedule: { kind: 'every', everyMs: 3_600_000, anchor: start },
    timezone: 'UTC',
    target: target(),
    creator: { id: 'user-ada' },
    profile: 'default',
    runs: 0,
    missed: 'run_once',
    state: 'active',
    nextRunAt: start,
    consecutiveFailures: 0,
    createdAt: start,
    ...changes,
  };
}

/** The stored jobs by id, in id order. */
function byId(jobs: Iterable<Job>): Record<string, Job> {
  return Object.fromEntries([...jobs].sort((a, b) => a.id.localeCompare(b.id)).map((stored) => [stored.id, stored]));
}

describe.each(storeKinds)('job store on the $name', (kind) => {
  it('reloads what was put and removed', async () => {
    const { store, reopen } = await kind.open();
    const jobs = await openJobStore(store);
    await jobs.put(job('a'));
    await jobs.put(job('b'));
    await jobs.put(job('a', { runs: 3, claim: { scheduledFor: start, at: start + 5 } }));
    await jobs.remove('b');
    await jobs.remove('unknown');
    expect(jobs.size).toBe(1);
    const reloaded = await openJobStore(reopen());
    expect(byId(reloaded.jobs())).toEqual({ a: job('a', { runs: 3, claim: { scheduledFor: start, at: start + 5 } }) });
  });

  it('skips a torn last record (a crash mid-append)', async () => {
    const { store, reopen } = await kind.open();
    const jobs = await openJobStore(store);
    await jobs.put(job('a'));
    await store.append('schedule:log:0', JSON.stringify({ j: job('a', { runs: 1 }) }).slice(0, 40));
    const reloaded = await openJobStore(reopen());
    expect(byId(reloaded.jobs())).toEqual({ a: job('a') });
    // Appends after the torn record are read back.
    await reloaded.put(job('c'));
    expect(Object.keys(byId((await openJobStore(reopen())).jobs()))).toEqual(['a', 'c']);
  });

  it('compacts into a snapshot of the next generation and keeps every job', async () => {
    const { store, reopen } = await kind.open();
    const jobs = await openJobStore(store, { compactAfter: 5 });
    for (let index = 0; index < 4; index++) await jobs.put(job(`j${index}`));
    await jobs.put(job('j0', { runs: 1 }));
    expect(await store.get('schedule:snapshot')).toBeNull();
    // The sixth record is more than max(5, 4 jobs): the log is compacted into generation 1 after
    // that write and before the next, which goes to the log of generation 1.
    await jobs.put(job('j0', { runs: 2 }));
    await jobs.put(job('j0', { runs: 3 }));
    expect(await store.get('schedule:snapshot')).toMatchObject({ generation: 1, jobs: expect.arrayContaining([job('j0', { runs: 2 })]) });
    expect(await store.readLog('schedule:log:0')).toEqual([]);
    await jobs.remove('j3');
    await jobs.put(job('j4'));
    expect(await store.readLog('schedule:log:1')).toHaveLength(3);
    const reloaded = await openJobStore(reopen(), { compactAfter: 5 });
    expect(byId(reloaded.jobs())).toEqual({ j0: job('j0', { runs: 3 }), j1: job('j1'), j2: job('j2'), j4: job('j4') });
  });

  it('after a crash between the snapshot and the log delete, reads the snapshot and deletes the old log', async () => {
    const { store, reopen } = await kind.open();
    await store.append('schedule:log:0', JSON.stringify({ j: job('old') }));
    await store.set('schedule:snapshot', { generation: 1, jobs: [job('a')] });
    await store.append('schedule:log:1', JSON.stringify({ j: job('b') }));
    const reloaded = await openJobStore(reopen());
    expect(Object.keys(byId(reloaded.jobs()))).toEqual(['a', 'b']);
    expect(await store.readLog('schedule:log:0')).toEqual([]);
    expect(await store.readLog('schedule:log:1')).toHaveLength(1);
  });

  it('skips records that are not jobs', async () => {
    const { store, reopen } = await kind.open();
    await store.append('schedule:log:0', JSON.stringify({ j: { id: 'x' } }));
    await store.append('schedule:log:0', 'not json');
    await store.append('schedule:log:0', JSON.stringify({ j: job('a') }));
    expect(Object.keys(byId((await openJobStore(reopen())).jobs()))).toEqual(['a']);
  });
});

describe('job store writes', () => {
  it('makes a change visible only once it is durable, and not at all when the append fails', async () => {
    const [memory] = storeKinds;
    const { store } = await memory!.open();
    const jobs = await openJobStore(Object.assign(Object.create(store) as typeof store, { append: () => Promise.reject(new Error('disk full')) }));
    await expect(jobs.put(job('a'))).rejects.toThrow('disk full');
    expect(jobs.get('a')).toBeUndefined();
  });
});
