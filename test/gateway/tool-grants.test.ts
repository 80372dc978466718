import { describe, expect, it } from 'vitest';
import { isOwnerSeat, ToolGrants, type ToolSeat } from '../../src/gateway/access/tool-grants.ts';
import type { ToolGrant } from '../../src/gateway/config/index.ts';

const seat = (changes: Partial<ToolSeat> = {}): ToolSeat => ({ platform: 'telegram', scope: 'group', conversationId: '-100', senderId: '7', admin: false, ...changes });
const grants = (list: ToolGrant[], options: { localWeb?: boolean; sandboxed?: boolean } = {}) =>
  new ToolGrants({ grants: list, localWeb: options.localWeb ?? false, sandboxed: options.sandboxed ?? true });
const groups = (tools: ToolGrants, at: ToolSeat) => [...tools.seatTools(at).groups].sort();

describe('tool grants: the owner seats', () => {
  it("gives an admin's own direct messages every tool, and an admin in a group none by default", () => {
    const tools = grants([]);
    expect(tools.seatTools(seat({ scope: 'dm', conversationId: '7', admin: true }))).toMatchObject({ owner: true });
    expect(groups(tools, seat({ scope: 'dm', conversationId: '7', admin: true }))).toEqual(['agents', 'browser', 'desktop', 'mcp', 'read', 'shell', 'write']);
    expect(tools.seatTools(seat({ admin: true }))).toEqual({ owner: false, groups: new Set() });
  });

  it("gives a non-admin's direct messages nothing by default, on every platform", () => {
    const tools = grants([]);
    for (const platform of ['telegram', 'discord', 'slack', 'web']) expect(tools.seatTools(seat({ platform, scope: 'dm' })).owner).toBe(false);
  });

  it('treats the web chat as the owner only while it is local', () => {
    expect(isOwnerSeat({ platform: 'web', scope: 'dm', admin: false }, true)).toBe(true);
    expect(isOwnerSeat({ platform: 'web', scope: 'dm', admin: false }, false)).toBe(false);
    expect(isOwnerSeat({ platform: 'web', scope: 'dm', admin: true }, false)).toBe(true);
    // Local means the web chat only: a Telegram DM of a non-admin stays a stranger's seat.
    expect(isOwnerSeat({ platform: 'telegram', scope: 'dm', admin: false }, true)).toBe(false);
  });

  it('keeps shell for the owner even without a sandbox', () => {
    expect(groups(grants([], { sandboxed: false }), seat({ scope: 'dm', admin: true }))).toContain('shell');
  });
});

describe('tool grants: configured grants', () => {
  it('grants per person, wherever they write', () => {
    const tools = grants([{ tools: ['read', 'shell'], people: ['telegram:7'], scope: 'any' }]);
    expect(groups(tools, seat())).toEqual(['read', 'shell']);
    expect(groups(tools, seat({ scope: 'dm' }))).toEqual(['read', 'shell']);
    expect(groups(tools, seat({ senderId: '8' }))).toEqual([]);
    // The same id on another platform is another person.
    expect(groups(tools, seat({ platform: 'discord' }))).toEqual([]);
  });

  it('grants per chat, its threads and topics included, or per thread alone', () => {
    const chat = grants([{ tools: ['write'], chats: ['telegram:-100'], scope: 'any' }]);
    expect(groups(chat, seat({ senderId: '99' }))).toEqual(['write']);
    expect(groups(chat, seat({ threadId: '17' }))).toEqual(['write']);
    expect(groups(chat, seat({ conversationId: '-200' }))).toEqual([]);
    const thread = grants([{ tools: ['write'], chats: ['telegram:-100:17'], scope: 'any' }]);
    expect(groups(thread, seat({ threadId: '17' }))).toEqual(['write']);
    expect(groups(thread, seat({ threadId: '18' }))).toEqual([]);
    expect(groups(thread, seat())).toEqual([]);
  });

  it('grants per platform and scope; every selector given must match; grants add up', () => {
    const tools = grants([
      { tools: ['read'], platforms: ['slack'], scope: 'dm' },
      { tools: 'all', platforms: ['slack'], people: ['slack:U1'], scope: 'group' },
    ]);
    expect(groups(tools, seat({ platform: 'slack', scope: 'dm', senderId: 'U2' }))).toEqual(['read']);
    expect(groups(tools, seat({ platform: 'slack', scope: 'group', senderId: 'U2' }))).toEqual([]);
    expect(groups(tools, seat({ platform: 'slack', scope: 'group', senderId: 'U1' }))).toEqual(['agents', 'browser', 'mcp', 'read', 'shell', 'write']);
    expect(groups(tools, seat({ platform: 'slack', scope: 'dm', senderId: 'U1' }))).toEqual(['read']);
  });

  it('withholds granted shell when commands cannot be sandboxed, and says how many grants that concerns', () => {
    const list: ToolGrant[] = [{ tools: 'all', chats: ['telegram:-100'], scope: 'any' }];
    const unsandboxed = grants(list, { sandboxed: false });
    expect(groups(unsandboxed, seat())).toEqual(['agents', 'browser', 'mcp', 'read', 'write']);
    expect(unsandboxed.withheldShellGrants).toBe(1);
    expect(unsandboxed.shellBeyondOwner).toBe(false);
    const sandboxed = grants(list);
    expect(sandboxed.shellBeyondOwner).toBe(true);
    expect(sandboxed.withheldShellGrants).toBe(0);
    expect(grants([{ tools: ['read'], chats: ['telegram:-100'], scope: 'any' }]).shellBeyondOwner).toBe(false);
  });

  it('hands seats with the same rights the same set (the agent caches the offer by it)', () => {
    const tools = grants([{ tools: ['read'], platforms: ['telegram'], scope: 'any' }]);
    expect(tools.seatTools(seat({ senderId: '1' })).groups).toBe(tools.seatTools(seat({ senderId: '2', conversationId: '-5' })).groups);
  });
});
