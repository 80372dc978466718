/**
 * The children's shared state as stored: a real store on disk read back by a new instance over
 * the same folder, a malformed stored value, a store that cannot write, and the pool's bounds.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultSubagentSettings, Subagents } from '../../src/agent/subagents/index.ts';
import { SharedStateStore } from '../../src/agent/subagents/shared-state-store.ts';
import { WorkerState } from '../../src/agent/subagents/worker-state.ts';
import { ReferencePool, referenceLimits } from '../../src/tools/agents/reference-pool.ts';
import { createStore } from '../../src/store/unstorage-store.ts';

let folder: string | undefined;
afterEach(() => {
  if (folder) rmSync(folder, { recursive: true, force: true });
  folder = undefined;
});

function diskStore() {
  folder ??= mkdtempSync(join(tmpdir(), 'operator-shared-'));
  return createStore({ driver: 'fs', base: folder });
}

describe("the children's shared state in the store", () => {
  it('is read back by a new store instance over the same folder: failures, loop counts and references', async () => {
    const workers = new WorkerState();
    const pool = new ReferencePool();
    workers.recordFailure('a1', 'deploy', { target: 'prod' }, 'connection refused');
    workers.recordCall('a1', 'echo', { text: 'x' });
    workers.recordCall('a1', 'echo', { text: 'x' });
    pool.add('a1', [{ title: 'deploy down', text: 'since 10:00' }]);
    const store = diskStore();
    await new SharedStateStore(store, 'chat', workers, pool).save();
    await store.close();

    const readWorkers = new WorkerState();
    const readPool = new ReferencePool();
    await new SharedStateStore(diskStore(), 'chat', readWorkers, readPool).load();
    expect(readWorkers.failureNote('b2')).toContain('- a1: deploy {"target":"prod"} -> connection refused');
    // The third identical call in a row completes the loop the stored two began.
    expect(readWorkers.recordCall('a1', 'echo', { text: 'x' })).toContain('3 times in a row');
    expect(readPool.search('deploy', 5).map((reference) => reference.id)).toEqual(['r1']);
    expect(readPool.add('b2', [{ title: 'next', text: 'one' }])[0]!.id).toBe('r2');
  });

  it('ignores a malformed stored value, and starts empty', async () => {
    const store = diskStore();
    await store.set('subagents-shared:chat', { workers: { failures: 'no' }, references: { next: 'x', references: 3 } });
    const workers = new WorkerState();
    const pool = new ReferencePool();
    await new SharedStateStore(store, 'chat', workers, pool).load();
    expect(workers.failureNote('a1')).toBeUndefined();
    expect(pool.size).toBe(0);
  });

  it('a store that cannot write costs the state after a restart, never the work: add_references still answers', async () => {
    folder = mkdtempSync(join(tmpdir(), 'operator-shared-'));
    const file = join(folder, 'not-a-folder');
    writeFileSync(file, '');
    const store = createStore({ driver: 'fs', base: file });
    await expect(new SharedStateStore(store, 'chat', new WorkerState(), new ReferencePool()).save()).rejects.toThrow();
    const subagents = new Subagents({ store, parentKey: 'chat', parentSegment: 'chat', settings: defaultSubagentSettings, depth: 0, createChild: () => { throw new Error('unused'); } });
    const references = subagents.referencesFor('parent');
    expect(await references.add([{ title: 'kept in memory', text: 'fact' }])).toContain('Saved reference r1');
    expect(await references.search('memory', 5)).toContain('<reference id="r1" by="the parent agent" title="kept in memory">');
  });

  it('keeps the newest references within the count and cuts each to its size', () => {
    const pool = new ReferencePool();
    for (let index = 0; index < referenceLimits.kept + 5; index++) pool.add('a1', [{ title: `note ${index}`, text: 'word' }]);
    expect(pool.size).toBe(referenceLimits.kept);
    expect(pool.search('note', referenceLimits.kept + 5).map((reference) => reference.id)).not.toContain('r5');
    expect(pool.search('note', 1)[0]!.id).toBe(`r${referenceLimits.kept + 5}`);
    const [long] = pool.add('a1', [{ title: 't'.repeat(500), text: 'x'.repeat(10_000) }]);
    expect([long!.title.length, long!.text.length]).toEqual([referenceLimits.titleChars, referenceLimits.textChars]);
  });
});
