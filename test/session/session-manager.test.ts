import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeSessionKey, encodeSessionKey, SessionManager, type SessionManagerOptions } from '../../src/session/session-manager.ts';
import { SessionTree } from '../../src/session/session-tree.ts';
import { createStore } from '../../src/store/unstorage-store.ts';
import { assistant, drivers, manualClock, sequentialIds, user, type StoreFixture } from './helpers.ts';

describe('session key encoding', () => {
  it('makes any key one safe store segment and back', () => {
    for (const key of ['telegram:dm:42', 'slack:T1:C9:thread:1712.44', '../etc/passwd', 'web:a/b?c$', 'é ✓']) {
      const encoded = encodeSessionKey(key);
      expect(encoded).toMatch(/^[A-Za-z0-9%_\-!~*'()]+$/);
      expect(encoded).not.toContain('.');
      expect(decodeSessionKey(encoded)).toBe(key);
    }
    expect(() => encodeSessionKey('')).toThrow(TypeError);
  });
});

describe.each(Object.keys(drivers) as (keyof typeof drivers)[])('SessionManager on the %s driver', (driver) => {
  let fixture: StoreFixture;
  let options: SessionManagerOptions;
  let manager: SessionManager;

  beforeEach(async () => {
    fixture = await drivers[driver]();
    const clock = manualClock();
    options = { now: clock.now, generateId: sequentialIds(), generateSessionId: sequentialIds('session-'), onWarning: () => {} };
    manager = new SessionManager(fixture.store, options);
  });
  afterEach(async () => {
    await fixture.cleanup();
  });

  it('creates a session on first open and returns the cached tree after', async () => {
    const tree = await manager.open('telegram:dm:42');
    expect(tree.id).toBe('session-0000001');
    expect(await manager.open('telegram:dm:42')).toBe(tree);
    expect(await fixture.store.list('session-index:')).toEqual(['session-index:telegram%3Adm%3A42']);
  });

  it('gives racing opens of a new key one session', async () => {
    const trees = await Promise.all(Array.from({ length: 10 }, () => manager.open('terminal:local')));
    expect(new Set(trees.map((tree) => tree.id)).size).toBe(1);
  });

  it('keeps keys apart', async () => {
    const a = await manager.open('discord:dm:1');
    const b = await manager.open('discord:dm:2');
    expect(a.id).not.toBe(b.id);
  });

  it('starts a new session and lists both, with counts and the current one marked', async () => {
    const first = await manager.open('k');
    await first.appendMessage(user('hi'));
    await first.appendMessage(assistant('hello'));
    const second = await manager.newSession('k');
    expect(second.id).not.toBe(first.id);
    expect(await manager.open('k')).toBe(second);
    expect(await manager.list('k')).toEqual([
      { key: 'k', id: first.id, createdAt: first.header.createdAt, messageCount: 2, current: false },
      { key: 'k', id: second.id, createdAt: second.header.createdAt, messageCount: 0, current: true },
    ]);
  });

  it('forks the branch up to the leaf or a given entry, keeping ids', async () => {
    const source = await manager.open('k');
    const a = await source.appendMessage(user('one'));
    const b = await source.appendMessage(assistant('two'));
    await source.appendMessage(user('three'));

    const atLeaf = await manager.fork('k');
    expect(atLeaf.id).not.toBe(source.id);
    expect(atLeaf.buildContext()).toEqual(source.buildContext());
    expect(atLeaf.header.forkedFrom).toEqual({ sessionId: source.id, entryId: source.leafId });

    const atB = await manager.fork('k', b.id);
    expect(atB.header.forkedFrom).toEqual({ sessionId: atLeaf.id, entryId: b.id });
    expect(atB.branch().map((entry) => entry.id)).toEqual([a.id, b.id]);
    expect(atB.leafId).toBe(b.id);
    await atB.appendMessage(user('three, differently'));
    expect(source.messageCount).toBe(3);
    expect(await manager.open('k')).toBe(atB);

    const reloaded = await SessionTree.open(fixture.reopen(), atB.id, options);
    expect(reloaded.entries()).toEqual(atB.entries());
    await expect(manager.fork('k', 'missing')).rejects.toThrow(/no entry missing/);
  });

  it('switches between stored sessions', async () => {
    const first = await manager.open('k');
    await first.appendMessage(user('first session'));
    await manager.newSession('k');
    const back = await manager.switchSession('k', first.id);
    expect(back.id).toBe(first.id);
    expect(back.buildContext()).toEqual(first.buildContext());
    expect((await manager.open('k')).id).toBe(first.id);
    expect((await manager.list('k')).find((summary) => summary.current)?.id).toBe(first.id);
    await expect(manager.switchSession('k', 'no-such-session')).rejects.toThrow(/No session/);
  });

  it('switches a key to a session of another key, sharing the tree', async () => {
    const other = await manager.open('other');
    const tree = await manager.switchSession('k', other.id);
    expect(tree).toBe(other);
    expect((await manager.list('k')).map((summary) => summary.id)).toEqual([other.id]);
  });

  it('evicts idle trees and reloads them from the store', async () => {
    const tree = await manager.open('k');
    await tree.appendMessage(user('remember me'));
    expect(manager.cachedKeys()).toEqual(['k']);
    expect(manager.evict('k')).toBe(true);
    expect(manager.evict('k')).toBe(false);
    const reloaded = await manager.open('k');
    expect(reloaded).not.toBe(tree);
    expect(reloaded.buildContext()).toEqual(tree.buildContext());
  });

  it('lists the sessions of every key', async () => {
    await manager.open('a:1');
    await manager.open('b:2');
    await manager.newSession('b:2');
    const summaries = await manager.list();
    expect(summaries.map((summary) => [summary.key, summary.current])).toEqual([
      ['a:1', true],
      ['b:2', false],
      ['b:2', true],
    ]);
  });

  it('finds the current session again after a restart', async () => {
    const tree = await manager.open('telegram:group:-1001:topic:17');
    await tree.appendMessage(user('persisted'));
    const restarted = new SessionManager(fixture.reopen(), options);
    const reopened = await restarted.open('telegram:group:-1001:topic:17');
    expect(reopened.id).toBe(tree.id);
    expect(reopened.buildContext()).toEqual(tree.buildContext());
  });
});

describe('SessionManager defaults', () => {
  it('works with generated ids and the default clock', async () => {
    const manager = new SessionManager(createStore({ driver: 'memory' }));
    const tree = await manager.open('web:client');
    expect(tree.id).toMatch(/^[a-z0-9]+-[0-9a-f]{8}$/);
    expect((await tree.appendMessage(user('x'))).id).toMatch(/^[0-9a-f]{8}$/);
  });
});
