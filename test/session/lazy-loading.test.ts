/**
 * Reopened sessions parse entry contents only when used. These tests pin down that this changes
 * nothing visible: same contexts as building from the whole branch, and damage inside a record
 * surfaces as a warning and an emptied entry, never as an exception.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildContextFromPath } from '../../src/session/build-context.ts';
import { serializeEntry } from '../../src/session/session-records.ts';
import { SessionTree, sessionLogKey } from '../../src/session/session-tree.ts';
import type { SessionEntry } from '../../src/session/types.ts';
import { assistant, drivers, manualClock, sequentialIds, user, type StoreFixture } from './helpers.ts';

/** A small deterministic pseudo-random sequence. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe.each(Object.keys(drivers) as (keyof typeof drivers)[])('lazy loading on the %s driver', (driver) => {
  let fixture: StoreFixture;
  let warnings: string[];
  const options = () => ({ now: manualClock().now, generateId: sequentialIds(), onWarning: (message: string) => warnings.push(message) });

  beforeEach(async () => {
    fixture = await drivers[driver]();
    warnings = [];
  });
  afterEach(async () => {
    await fixture.cleanup();
  });

  it('builds the same context as the whole branch would, for random trees', async () => {
    for (let seed = 1; seed <= 5; seed++) {
      const next = random(seed);
      const tree = await SessionTree.open(fixture.store, `random-${seed}`, options());
      const ids: string[] = [];
      for (let step = 0; step < 150; step++) {
        const roll = next();
        if (roll < 0.6 || ids.length === 0) ids.push((await tree.appendMessage(next() < 0.5 ? user(`u${step}`) : assistant(`a${step}`))).id);
        else if (roll < 0.7) await tree.append({ type: 'model_change', model: `model-${step}` });
        else if (roll < 0.8) {
          const branch = tree.branch();
          // Sometimes a first kept entry that is not on the branch, to cover that path too.
          const kept = next() < 0.8 && branch.length > 0 ? branch[Math.floor(next() * branch.length)]!.id : ids[0]!;
          await tree.append({ type: 'compaction', summary: `summary ${step}`, firstKeptEntryId: kept, tokensBefore: step });
        } else if (roll < 0.85) await tree.append({ type: 'custom', customType: 'mark', data: step });
        else await tree.setLeaf(ids[Math.floor(next() * ids.length)]!);
      }
      const expected = buildContextFromPath(tree.branch());
      expect(tree.buildContext()).toEqual(expected);
      const reopened = await SessionTree.open(fixture.reopen(), `random-${seed}`, options());
      expect(reopened.buildContext()).toEqual(expected);
      expect(buildContextFromPath(reopened.branch())).toEqual(expected);
      expect(reopened.entries()).toEqual(tree.entries());
    }
  });

  it('writes type, id, parentId and timestamp first in each entry record', () => {
    const entry = { message: user('x'), timestamp: 5, parentId: null, id: 'a', type: 'message' } as SessionEntry;
    expect(serializeEntry(entry)).toBe('{"type":"message","id":"a","parentId":null,"timestamp":5,"message":{"role":"user","content":[{"type":"text","text":"x"}]}}');
  });

  it('reports a damaged record inside the log only when its entry is used, and keeps its place', async () => {
    const key = sessionLogKey('damaged');
    const entries: SessionEntry[] = [
      { type: 'message', id: 'a', parentId: null, timestamp: 1, message: user('one') },
      { type: 'message', id: 'b', parentId: 'a', timestamp: 2, message: user('two') },
      { type: 'message', id: 'c', parentId: 'b', timestamp: 3, message: assistant('three') },
      { type: 'compaction', id: 'd', parentId: 'c', timestamp: 4, summary: 'one two', firstKeptEntryId: 'c', tokensBefore: 10 },
      { type: 'message', id: 'e', parentId: 'd', timestamp: 5, message: user('four') },
    ];
    await fixture.store.append(key, JSON.stringify({ type: 'session', version: 1, id: 'damaged', createdAt: 0 }));
    for (const entry of entries) {
      // Entry b's content is broken, though its start (type, id, parent) reads fine.
      const record = entry.id === 'b' ? '{"type":"message","id":"b","parentId":"a","timestamp":2,"message":{"role":"user","content":"oops"}}' : serializeEntry(entry);
      await fixture.store.append(key, record);
    }

    const tree = await SessionTree.open(fixture.store, 'damaged', options());
    expect(warnings).toEqual([]);
    expect(tree.buildContext().entryIds).toEqual([null, 'c', 'e']);
    expect(warnings).toEqual([]);

    expect(tree.branch().map((entry) => entry.id)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(tree.getEntry('b')).toEqual({ type: 'custom', customType: 'unreadable', data: null, id: 'b', parentId: 'a', timestamp: 0 });
    expect(warnings).toEqual(['Session damaged: entry b is unreadable; it is kept as an empty custom entry']);
  });
});
