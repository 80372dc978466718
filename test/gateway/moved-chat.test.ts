/**
 * What a moved group takes along, on the real parts over a memory store: its conversation with the
 * hour's allowances (`carryConversation`), and its jobs, the tools granted there and the profile
 * chosen there (`moveChat`). What the new chat has of its own is kept, and a second delivery of
 * the platform's event moves nothing twice.
 */
import { describe, expect, it } from 'vitest';
import { loadChatGrants, saveChatGrants } from '../../src/gateway/access/chat-grants.ts';
import { describeMovedChat, moveChat } from '../../src/gateway/access/moved-chat.ts';
import { carryConversation } from '../../src/gateway/access/moved-conversation.ts';
import { ToolGrants } from '../../src/gateway/access/tool-grants.ts';
import { allowancesKey } from '../../src/gateway/approvals.ts';
import { Scheduler } from '../../src/gateway/scheduler/index.ts';
import { ProfileBindingStore } from '../../src/resources/profile-binding.ts';
import { SessionManager } from '../../src/session/session-manager.ts';
import { createStore } from '../../src/store/index.ts';
import { leastSeat } from '../../src/tools/turn-seat.ts';

const oldKey = 'telegram:group:-444';
const newKey = 'telegram:group:-100555';

async function parts() {
  const store = createStore({ driver: 'memory' });
  const scheduler = new Scheduler({ store, run: async () => ({ status: 'ok' }), notify: async () => {}, settings: { timezone: 'UTC' } });
  await scheduler.load();
  const grants = new ToolGrants({ grants: [], localWeb: false, sandboxed: false });
  const bindings = new ProfileBindingStore(store);
  return { store, scheduler, grants, bindings };
}

describe('a moved group', () => {
  it('takes its jobs, the tools granted there and its profile along, once', async () => {
    const { store, scheduler, grants, bindings } = await parts();
    const target = { sessionKey: oldKey, address: { platform: 'telegram', conversationId: '-444' }, scope: 'group' as const };
    const { job } = await scheduler.create({ prompt: 'post the summary', target, profile: 'default', seat: leastSeat, every: '1h' }, { id: '1', admin: true, fromJob: false });
    await saveChatGrants(store, grants, 'telegram', '-444', ['read', 'write']);
    await bindings.bindChannel('telegram:-444', 'formal');

    const moved = await moveChat({ scheduler, grants, store, bindings }, 'telegram', '-444', { conversationId: '-100555', sessionKey: newKey });
    expect(moved).toEqual({ jobs: [job.id], grants: ['read', 'write'], profile: 'formal' });
    expect(describeMovedChat(moved)).toBe(`1 scheduled job (${job.id}), the tools granted there (read, write), its profile (formal)`);
    expect(scheduler.get(job.id)!.target).toEqual({ sessionKey: newKey, address: { platform: 'telegram', conversationId: '-100555' }, scope: 'group' });
    expect(scheduler.list({ sessionKey: newKey }).map((listed) => listed.id)).toEqual([job.id]);
    expect(grants.chatGroups('telegram', '-100555')).toEqual(['read', 'write']);
    expect(grants.chatGroups('telegram', '-444')).toEqual([]);
    expect((await bindings.bindings()).channels).toEqual({ 'telegram:-100555': 'formal' });
    // Kept in the store: a restart reads the grant at the new id only.
    const reloaded = new ToolGrants({ grants: [], localWeb: false, sandboxed: false });
    await loadChatGrants(store, reloaded);
    expect(reloaded.chatGroups('telegram', '-100555')).toEqual(['read', 'write']);
    expect(reloaded.chatGroups('telegram', '-444')).toEqual([]);

    // The platform delivers the event again: nothing is left to move.
    const again = await moveChat({ scheduler, grants, store, bindings }, 'telegram', '-444', { conversationId: '-100555', sessionKey: newKey });
    expect(again).toEqual({ jobs: [], grants: [] });
    expect(describeMovedChat(again)).toBe('');
  });

  it('leaves what the new chat has of its own', async () => {
    const { store, scheduler, grants, bindings } = await parts();
    await saveChatGrants(store, grants, 'telegram', '-444', ['write']);
    await saveChatGrants(store, grants, 'telegram', '-100555', ['read']);
    await bindings.bindChannel('telegram:-444', 'formal');
    await bindings.bindChannel('telegram:-100555', 'casual');
    const moved = await moveChat({ scheduler, grants, store, bindings }, 'telegram', '-444', { conversationId: '-100555', sessionKey: newKey });
    expect(moved).toEqual({ jobs: [], grants: [] });
    expect(grants.chatGroups('telegram', '-100555')).toEqual(['read']);
    expect((await bindings.bindings()).channels?.['telegram:-100555']).toBe('casual');
  });

  it("carries the conversation's hour's allowances with it", async () => {
    const store = createStore({ driver: 'memory' });
    const sessions = new SessionManager(store);
    const tree = await sessions.open(oldKey);
    await tree.appendMessage({ role: 'user', content: [{ type: 'text', text: 'hello' }], timestamp: 1 });
    const until = Date.now() + 3_600_000;
    await store.set(allowancesKey(oldKey), { shell: until });
    expect(await carryConversation({ sessions, store }, oldKey, newKey)).toBe(true);
    expect(await store.get(allowancesKey(newKey))).toEqual({ shell: until });
    expect((await sessions.list(newKey)).find((session) => session.current)?.id).toBe(tree.id);
  });
});
