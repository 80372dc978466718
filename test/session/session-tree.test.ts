import { appendFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SessionTree, sessionLogKey, type SessionTreeOptions } from '../../src/session/session-tree.ts';
import type { SessionEntry } from '../../src/session/types.ts';
import { assistant, drivers, manualClock, recordingStore, sequentialIds, user, type StoreFixture } from './helpers.ts';

describe.each(Object.keys(drivers) as (keyof typeof drivers)[])('SessionTree on the %s driver', (driver) => {
  let fixture: StoreFixture;
  let clock: ReturnType<typeof manualClock>;
  let warnings: string[];
  let options: SessionTreeOptions;

  beforeEach(async () => {
    fixture = await drivers[driver]();
    clock = manualClock();
    warnings = [];
    options = { now: clock.now, generateId: sequentialIds(), onWarning: (message) => warnings.push(message) };
  });
  afterEach(async () => {
    await fixture.cleanup();
  });

  const reopen = (sessionId = 's1') => SessionTree.open(fixture.reopen(), sessionId, { ...options, generateId: sequentialIds('r') });

  it('starts a new session with a header and nothing else', async () => {
    const tree = await SessionTree.open(fixture.store, 's1', { ...options, cwd: '/work' });
    expect(tree.id).toBe('s1');
    expect(tree.leafId).toBeNull();
    expect(tree.entries()).toEqual([]);
    expect(tree.buildContext()).toEqual({ messages: [], entryIds: [] });
    const records = await fixture.store.readLog(sessionLogKey('s1'));
    expect(records.map((record) => JSON.parse(record))).toEqual([
      { type: 'session', version: 1, id: 's1', createdAt: clock.now(), cwd: '/work' },
    ]);
    expect(await SessionTree.load(fixture.store, 'unknown')).toBeNull();
  });

  it('appends under the leaf and moves the leaf', async () => {
    const tree = await SessionTree.open(fixture.store, 's1', options);
    const a = await tree.appendMessage(user('one'));
    clock.advance(5);
    const b = await tree.appendMessage(assistant('two'));
    expect(a).toMatchObject({ type: 'message', id: 'e0000001', parentId: null, timestamp: clock.now() - 5 });
    expect(b).toMatchObject({ id: 'e0000002', parentId: 'e0000001', timestamp: clock.now() });
    expect(tree.leafId).toBe(b.id);
    expect(tree.getEntry(a.id)).toEqual(a);
    expect(tree.messageCount).toBe(2);
    expect(tree.branch()).toEqual([a, b]);
  });

  it('draws a new id when the generated one is taken', async () => {
    const ids = ['x', 'x', 'y'];
    const tree = await SessionTree.open(fixture.store, 's1', { ...options, generateId: () => ids.shift()! });
    await tree.appendMessage(user('one'));
    expect((await tree.appendMessage(user('two'))).id).toBe('y');
  });

  it('rewinds and branches with setLeaf, keeping every entry', async () => {
    const tree = await SessionTree.open(fixture.store, 's1', options);
    const a = await tree.appendMessage(user('a'));
    const b = await tree.appendMessage(assistant('b'));
    const c = await tree.appendMessage(user('c'));
    await tree.setLeaf(a.id);
    expect(tree.branch()).toEqual([a]);
    const d = await tree.appendMessage(user('d'));
    expect(d.parentId).toBe(a.id);
    expect(tree.branch().map((entry) => entry.id)).toEqual([a.id, d.id]);
    expect(tree.entries().map((entry) => entry.id)).toEqual([a.id, b.id, c.id, d.id]);
    await tree.setLeaf(c.id);
    expect(tree.buildContext().entryIds).toEqual([a.id, b.id, c.id]);
    await tree.setLeaf(null);
    const root = await tree.appendMessage(user('new root'));
    expect(root.parentId).toBeNull();
    expect(tree.branch()).toEqual([root]);
    await expect(tree.setLeaf('nope')).rejects.toThrow(/no entry nope/);
    expect(tree.leafId).toBe(root.id);
  });

  it('applies concurrent appends one after another', async () => {
    const tree = await SessionTree.open(fixture.store, 's1', options);
    const entries = await Promise.all(Array.from({ length: 20 }, (_, index) => tree.appendMessage(user(`m${index}`))));
    for (let index = 1; index < entries.length; index++) expect(entries[index]!.parentId).toBe(entries[index - 1]!.id);
    expect(tree.branch()).toHaveLength(20);
  });

  it('writes the entry as it was when appended: the log is the record of truth', async () => {
    const tree = await SessionTree.open(fixture.store, 's1', options);
    const message = user('original');
    const entry = await tree.appendMessage(message);
    // Messages are values and callers must not change them; if one does, the log still holds
    // what was appended, and a reload shows that.
    (message.content[0] as { text: string }).text = 'changed';
    const reloaded = await SessionTree.open(fixture.store, 's1', options);
    expect(reloaded.getEntry(entry.id)).toMatchObject({ message: user('original') });
  });

  it('builds the context with compaction, model changes and custom entries', async () => {
    const tree = await SessionTree.open(fixture.store, 's1', options);
    await tree.appendMessage(user('one'));
    await tree.append({ type: 'model_change', model: 'model-b' });
    await tree.appendMessage(assistant('two'));
    const kept = await tree.appendMessage(user('three'));
    await tree.appendMessage(assistant('four'));
    await tree.append({ type: 'compaction', summary: 'one and two', firstKeptEntryId: kept.id, tokensBefore: 1234 });
    await tree.append({ type: 'custom', customType: 'ui', data: { collapsed: true } });
    const last = await tree.appendMessage(user('five'));
    const context = tree.buildContext();
    expect(context.model).toBe('model-b');
    expect(context.entryIds).toEqual([null, kept.id, 'e0000005', last.id]);
    expect(context.messages[0]!.content[0]).toMatchObject({ text: expect.stringContaining('<summary>\none and two\n</summary>') });
    expect(context.messages.slice(1)).toEqual([user('three'), assistant('four'), user('five')]);
  });

  it('gives the identical tree and context when reopened from the store', async () => {
    const tree = await SessionTree.open(fixture.store, 's1', options);
    const a = await tree.appendMessage(user('one'));
    await tree.appendMessage(assistant('two'));
    await tree.setLeaf(a.id);
    await tree.appendMessage(assistant('other two'));
    await tree.append({ type: 'compaction', summary: 'sum', firstKeptEntryId: a.id, tokensBefore: 9 });
    await tree.append({ type: 'model_change', model: 'm' });
    const reopened = await reopen();
    expect(reopened.entries()).toEqual(tree.entries());
    expect(reopened.leafId).toBe(tree.leafId);
    expect(reopened.buildContext()).toEqual(tree.buildContext());
    expect(reopened.messageCount).toBe(3);
    expect(reopened.header).toEqual(tree.header);
    expect(warnings).toEqual([]);
  });

  it('remembers a leaf move across reopening', async () => {
    const tree = await SessionTree.open(fixture.store, 's1', options);
    const a = await tree.appendMessage(user('one'));
    await tree.appendMessage(assistant('two'));
    await tree.setLeaf(a.id);
    expect((await reopen()).leafId).toBe(a.id);
    await tree.setLeaf(null);
    expect((await reopen()).leafId).toBeNull();
  });

  it('skips a crash-torn last record with a warning and keeps the rest', async () => {
    const tree = await SessionTree.open(fixture.store, 's1', options);
    const a = await tree.appendMessage(user('one'));
    const b = await tree.appendMessage(assistant('two'));
    const torn = JSON.stringify({ type: 'message', id: 'e9', parentId: b.id, timestamp: 1, message: user('three') }).slice(0, 40);
    if (fixture.base) await appendFile(join(fixture.base, 'sessions', 's1'), torn);
    else await fixture.store.append(sessionLogKey('s1'), torn);

    const reopened = await reopen();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/Session s1: skipped record 4 of 4 \(unreadable/);
    expect(reopened.entries()).toEqual([a, b]);
    expect(reopened.leafId).toBe(b.id);

    // The session goes on: a new entry lands on a fresh line and survives the next load.
    const c = await reopened.appendMessage(user('three again'));
    warnings.length = 0;
    const again = await reopen();
    expect(again.entries()).toEqual([a, b, c]);
    expect(warnings).toHaveLength(1);
  });

  it('skips records it cannot place, with a warning each', async () => {
    const tree = await SessionTree.open(fixture.store, 's1', options);
    const a = await tree.appendMessage(user('one'));
    const key = sessionLogKey('s1');
    await fixture.store.append(key, JSON.stringify({ type: 'future_thing', id: 'f' }));
    await fixture.store.append(key, JSON.stringify({ type: 'message', id: 'o', parentId: 'missing', timestamp: 1, message: user('x') }));
    await fixture.store.append(key, JSON.stringify({ type: 'message', id: a.id, parentId: null, timestamp: 1, message: user('dup') }));
    await fixture.store.append(key, JSON.stringify({ type: 'leaf', targetId: 'missing', timestamp: 1 }));
    await fixture.store.append(key, '[1,2]');
    const reopened = await reopen();
    expect(reopened.entries()).toEqual([a]);
    expect(warnings).toHaveLength(5);
  });

  it('reads a log without header, warning once', async () => {
    const entry: SessionEntry = { type: 'message', id: 'h1', parentId: null, timestamp: 42, message: user('x') };
    await fixture.store.append(sessionLogKey('s2'), JSON.stringify(entry));
    const tree = await reopen('s2');
    expect(tree.entries()).toEqual([entry]);
    expect(tree.header).toEqual({ type: 'session', version: 1, id: 's2', createdAt: 42 });
    expect(warnings).toEqual(['Session s2: no header record; assuming one']);
  });

  it('writes exactly one record per append and per leaf move, of a size independent of the length', async () => {
    const { store, calls } = recordingStore(fixture.store);
    const tree = await SessionTree.open(store, 's1', options);
    const perAppend: { calls: number; bytes: number[] }[] = [];
    for (let index = 0; index < 2_000; index++) {
      calls.length = 0;
      await tree.appendMessage(user('same text each time'));
      if (index === 10 || index === 1_999) perAppend.push({ calls: calls.length, bytes: calls.map((call) => call.bytes ?? -1) });
    }
    expect(perAppend[0]).toEqual({ calls: 1, bytes: [expect.any(Number)] });
    expect(perAppend[1]).toEqual(perAppend[0]);
    expect(calls[0]).toMatchObject({ method: 'append', key: 'sessions:s1' });

    calls.length = 0;
    await tree.setLeaf('e0000010');
    expect(calls.map((call) => call.method)).toEqual(['append']);
  });

  it('refuses a session id that is not a single safe segment', async () => {
    await expect(SessionTree.open(fixture.store, 'a:b', options)).rejects.toThrow(TypeError);
    await expect(SessionTree.open(fixture.store, '../x', options)).rejects.toThrow(TypeError);
  });

  it('refuses to create over an existing session', async () => {
    await SessionTree.open(fixture.store, 's1', options);
    await expect(SessionTree.create(fixture.store, 's1', {}, options)).rejects.toThrow(/already exists/);
  });

  it('warns through console.warn by default', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    await fixture.store.append(sessionLogKey('s3'), '{torn');
    await SessionTree.open(fixture.store, 's3');
    expect(warn).toHaveBeenCalled();
    warn.mockRestore();
  });
});
