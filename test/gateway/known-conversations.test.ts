/**
 * KnownConversations over the real store (memory, and the filesystem across a restart): what is
 * remembered is found again, a thread is its own conversation, unchanged conversations are not
 * written twice, a failed write is tried again, and a damaged record reads as unknown. Also
 * parseAddress and formatAddress.
 */
import { describe, expect, it } from 'vitest';
import type { ConversationAddress } from '../../src/channels/types.ts';
import { formatAddress, KnownConversations, parseAddress } from '../../src/gateway/known-conversations.ts';
import { createStore, type Store } from '../../src/store/index.ts';
import { makeTempDir } from '../helpers/temp-dir.ts';

const group: ConversationAddress = { platform: 'telegram', conversationId: '-100123' };
const channel: ConversationAddress = { platform: 'slack', conversationId: 'C1' };
const thread: ConversationAddress = { platform: 'slack', conversationId: 'C1', threadId: '1700000000.000100' };

/** The real store, with its `set` calls counted and, when told, failed. */
function watchedStore(store: Store): { store: Store; sets: string[]; failNextSet(error: Error): void } {
  const sets: string[] = [];
  let failure: Error | undefined;
  const set: Store['set'] = async (key, value, options) => {
    sets.push(key);
    if (failure) {
      const error = failure;
      failure = undefined;
      throw error;
    }
    return store.set(key, value, options);
  };
  const watched = new Proxy(store, {
    get(target, property) {
      if (property === 'set') return set;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { store: watched, sets, failNextSet: (error) => (failure = error) };
}

describe('KnownConversations', () => {
  it('lists the conversations of a platform that had a message lately, most recent first, across a restart', async () => {
    const dir = await makeTempDir('operator-known-recent-');
    let now = 1_000_000_000_000;
    const store = createStore({ driver: 'fs', base: dir });
    const known = new KnownConversations(store, () => now);
    const dm: ConversationAddress = { platform: 'discord', conversationId: '111' };
    const general: ConversationAddress = { platform: 'discord', conversationId: '222' };
    const old: ConversationAddress = { platform: 'discord', conversationId: '333' };
    await known.remember('discord:channel:333', old, 'group');
    now += 40 * 86_400_000;
    await known.remember('discord:dm:9', dm, 'dm', now - 5_000);
    await known.remember('telegram:group:-100123', group, 'group');
    now += 60_000;
    await known.remember('discord:channel:222', general, 'group');
    // Still current a minute later (nothing to write); ten minutes later the activity is written again.
    now += 60_000;
    expect(known.isCurrent('discord:dm:9', dm, 'dm')).toBe(true);
    now += 10 * 60_000;
    expect(known.isCurrent('discord:dm:9', dm, 'dm')).toBe(false);
    await known.remember('discord:dm:9', dm, 'dm');
    await store.close();

    const again = new KnownConversations(createStore({ driver: 'fs', base: dir }), () => now);
    const recent = await again.recent('discord', now - 30 * 86_400_000, 10);
    expect(recent.map((entry) => entry.sessionKey)).toEqual(['discord:dm:9', 'discord:channel:222']);
    // The activity is the latest write's; `since` the send time of the first message this process took there.
    expect(recent[0]).toMatchObject({ address: dm, scope: 'dm', lastMessageAt: now, since: 1_000_000_000_000 + 40 * 86_400_000 - 5_000 });
    expect((await again.recent('discord', now - 30 * 86_400_000, 1)).map((entry) => entry.sessionKey)).toEqual(['discord:dm:9']);
    expect((await again.recent('discord', 0, 10)).map((entry) => entry.sessionKey)).toEqual(['discord:dm:9', 'discord:channel:222', 'discord:channel:333']);
    expect(await again.recent('slack', 0, 10)).toEqual([]);
  });

  it('finds a conversation it remembered, with its session key, address and scope', async () => {
    const known = new KnownConversations(createStore({ driver: 'memory' }));
    await known.remember('telegram:group:-100123', group, 'group');
    expect(await known.find(group)).toEqual({ sessionKey: 'telegram:group:-100123', address: group, scope: 'group', lastMessageAt: expect.any(Number), since: expect.any(Number) });
  });

  it('says a conversation is current only once it was written with the same session key and scope', async () => {
    const known = new KnownConversations(createStore({ driver: 'memory' }));
    expect(known.isCurrent('telegram:group:-100123', group, 'group')).toBe(false);
    await known.remember('telegram:group:-100123', group, 'group');
    expect(known.isCurrent('telegram:group:-100123', group, 'group')).toBe(true);
    expect(known.isCurrent('telegram:group:-100123', group, 'dm')).toBe(false);
    expect(known.isCurrent('telegram:group:-100999', group, 'group')).toBe(false);
  });

  it('finds a conversation remembered by another instance over the same store', async () => {
    const store = createStore({ driver: 'memory' });
    await new KnownConversations(store).remember('telegram:group:-100123', group, 'group');
    expect(await new KnownConversations(store).find({ platform: 'telegram', conversationId: '-100123' })).toEqual({
      sessionKey: 'telegram:group:-100123',
      address: group,
      scope: 'group',
      lastMessageAt: expect.any(Number),
      since: expect.any(Number),
    });
  });

  it('finds what was remembered before a restart, through a new filesystem store over the same folder', async () => {
    const base = await makeTempDir('operator-known-');
    const before = createStore({ driver: 'fs', base });
    await new KnownConversations(before).remember('slack:thread:C1:1700000000.000100', thread, 'group');
    await before.close();

    const after = createStore({ driver: 'fs', base });
    try {
      const known = new KnownConversations(after);
      expect(await known.find(thread)).toEqual({ sessionKey: 'slack:thread:C1:1700000000.000100', address: thread, scope: 'group', lastMessageAt: expect.any(Number), since: expect.any(Number) });
      expect(await known.find(channel)).toBeUndefined();
    } finally {
      await after.close();
    }
  });

  it('keeps a thread apart from the channel it is in', async () => {
    const store = createStore({ driver: 'memory' });
    const known = new KnownConversations(store);
    await known.remember('slack:thread:C1:1700000000.000100', thread, 'group');
    expect(await known.find(channel)).toBeUndefined();

    await known.remember('slack:channel:C1', channel, 'group');
    const fresh = new KnownConversations(store);
    expect((await fresh.find(thread))?.sessionKey).toBe('slack:thread:C1:1700000000.000100');
    expect((await fresh.find(channel))?.sessionKey).toBe('slack:channel:C1');
    expect(await store.list('known-conversation:')).toHaveLength(2);
  });

  it('answers undefined for an address it has never seen', async () => {
    const known = new KnownConversations(createStore({ driver: 'memory' }));
    await known.remember('telegram:group:-100123', group, 'group');
    expect(await known.find({ platform: 'telegram', conversationId: '-999' })).toBeUndefined();
    expect(await known.find({ platform: 'discord', conversationId: '-100123' })).toBeUndefined();
  });

  it('writes the store once for a conversation that does not change', async () => {
    const { store, sets } = watchedStore(createStore({ driver: 'memory' }));
    const known = new KnownConversations(store);
    await known.remember('telegram:group:-100123', group, 'group');
    await known.remember('telegram:group:-100123', group, 'group');
    await known.remember('telegram:group:-100123', { ...group }, 'group');
    expect(sets).toHaveLength(1);
  });

  it('writes again when the scope or the session key of an address changes', async () => {
    const memory = createStore({ driver: 'memory' });
    const { store, sets } = watchedStore(memory);
    const known = new KnownConversations(store);
    await known.remember('telegram:group:-100123', group, 'group');
    await known.remember('telegram:dm:-100123', group, 'dm');
    expect(sets).toHaveLength(2);
    await known.remember('telegram:other:-100123', group, 'dm');
    expect(sets).toHaveLength(3);

    expect(await new KnownConversations(memory).find(group)).toEqual({ sessionKey: 'telegram:other:-100123', address: group, scope: 'dm', lastMessageAt: expect.any(Number), since: expect.any(Number) });
  });

  it('rejects remember when the store cannot write, and writes again on the next remember', async () => {
    const memory = createStore({ driver: 'memory' });
    const { store, sets, failNextSet } = watchedStore(memory);
    const known = new KnownConversations(store);
    failNextSet(new Error('disk full'));
    await expect(known.remember('telegram:group:-100123', group, 'group')).rejects.toThrow('disk full');
    expect(await new KnownConversations(memory).find(group)).toBeUndefined();

    await known.remember('telegram:group:-100123', group, 'group');
    expect(sets).toHaveLength(2);
    expect((await new KnownConversations(memory).find(group))?.sessionKey).toBe('telegram:group:-100123');
  });

  it('reads a damaged stored record as an unknown conversation', async () => {
    const store = createStore({ driver: 'memory' });
    await new KnownConversations(store).remember('telegram:group:-100123', group, 'group');
    const [key, ...others] = await store.list('known-conversation:');
    expect(others).toEqual([]);

    for (const junk of ['junk', 42, [], { sessionKey: 'telegram:group:-100123', scope: 'channel', address: group }, { sessionKey: 'x', scope: 'dm' }]) {
      await store.set(key!, junk);
      expect(await new KnownConversations(store).find(group)).toBeUndefined();
    }
  });

  it('does not take a stored record that names another address for the one asked about', async () => {
    const store = createStore({ driver: 'memory' });
    await new KnownConversations(store).remember('telegram:group:-100123', group, 'group');
    const [key] = await store.list('known-conversation:');
    await store.set(key!, { sessionKey: 'telegram:group:-555', address: { platform: 'telegram', conversationId: '-555' }, scope: 'group' });
    expect(await new KnownConversations(store).find(group)).toBeUndefined();
  });
});

describe('parseAddress', () => {
  it('reads platform:conversation', () => {
    expect(parseAddress('telegram:-100123')).toEqual({ platform: 'telegram', conversationId: '-100123' });
  });

  it('reads platform:conversation:thread', () => {
    expect(parseAddress('slack:C1:1700000000.000100')).toEqual({ platform: 'slack', conversationId: 'C1', threadId: '1700000000.000100' });
  });

  it('ignores spaces around the whole address', () => {
    expect(parseAddress('  telegram:-100123 \n')).toEqual({ platform: 'telegram', conversationId: '-100123' });
  });

  it.each(['telegram', 'a:b:c:d', ':x', 'x:', 'a: b', 'a :b', 'a::b', '', ':'])('refuses %j', (text) => {
    expect(parseAddress(text)).toBeUndefined();
  });
});

describe('formatAddress', () => {
  it('writes an address with and without a thread', () => {
    expect(formatAddress(group)).toBe('telegram:-100123');
    expect(formatAddress(thread)).toBe('slack:C1:1700000000.000100');
  });

  it('is read back by parseAddress', () => {
    for (const address of [group, channel, thread]) expect(parseAddress(formatAddress(address))).toEqual(address);
  });
});
