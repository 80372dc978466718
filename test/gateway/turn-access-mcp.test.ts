/**
 * Who gets the MCP servers' tools: the `mcp` tool group, the owner's seats by default and others by
 * grant. A grant of `mcp` alone opens no workspace (the servers' tools do not work in it), and
 * where no sandbox runs a command's server is the owner's alone, while a server reached over
 * HTTP stays grantable.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolGrants, type ToolSeat } from '../../src/gateway/access/tool-grants.ts';
import { TurnAccess } from '../../src/gateway/turn-access.ts';
import { keySegment } from '../../src/gateway/dedupe.ts';
import { readSeat } from '../../src/tools/turn-seat.ts';
import { defineTool, type Tool } from '../../src/tools/tool.ts';

let root: string | undefined;
afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

const tool = (name: string, extra: Partial<Tool>) => defineTool({ name, description: 'x', parameters: z.object({}), execute: async () => 'ok', ...extra }) as unknown as Tool;
const tools: Tool[] = [
  tool('memory', { machine: 'none' }),
  tool('mcp__fs__read', { machine: 'mcp', runsInSandbox: true }),
  tool('mcp__tracker__find', { machine: 'mcp', runsInSandbox: false }),
  tool('shell', { machine: 'shell' }),
];

function accessWith(confined: boolean, grants: ConstructorParameters<typeof ToolGrants>[0]['grants']) {
  root = mkdtempSync(join(tmpdir(), 'operator-turn-mcp-'));
  const access = new TurnAccess({ grants: new ToolGrants({ grants, localWeb: false, sandboxed: confined }), cwd: join(root, 'workspace'), home: join(root, 'home'), confined });
  return { access, temp: join(root, 'home', 'profiles', 'default', 'temp') };
}
const seat = (changes: Partial<ToolSeat & { sessionKey: string }> = {}) => ({ sessionKey: 'telegram:group:-100', platform: 'telegram', scope: 'group' as const, conversationId: '-100', senderId: '7', admin: false, ...changes });
const granted = [{ tools: ['mcp' as const], people: ['telegram:8'], scope: 'any' as const }];

describe('the mcp tool group', () => {
  it('is not offered to a member without a grant, and is to a granted one, who stays in the own folder', async () => {
    const { access, temp } = accessWith(true, granted);
    expect([...(await access.forTurn(seat(), tools, temp)).tools!]).toEqual(['memory']);
    const turn = await access.forTurn(seat({ senderId: '8' }), tools, temp);
    expect([...turn.tools!]).toEqual(['memory', 'mcp__fs__read', 'mcp__tracker__find']);
    expect(turn.seat).toEqual({ owner: false, groups: ['mcp'], workspace: 'own' });
    expect(turn.workspace!.cwd).toBe(join(temp, keySegment('telegram:group:-100')));
  });

  it('is part of a grant of "all", and of every owner seat', async () => {
    const { access, temp } = accessWith(true, [{ tools: 'all', people: ['telegram:9'], scope: 'any' }]);
    expect((await access.forTurn(seat({ senderId: '9' }), tools, temp)).tools!.has('mcp__fs__read')).toBe(true);
    expect((await access.forTurn(seat({ scope: 'dm', admin: true, sessionKey: 'telegram:dm:7' }), tools, temp)).tools).toBeUndefined();
  });

  it("keeps a command's server to the owner where no sandbox runs; a server reached over HTTP stays grantable", async () => {
    const { access, temp } = accessWith(false, granted);
    expect([...(await access.forTurn(seat({ senderId: '8' }), tools, temp)).tools!]).toEqual(['memory', 'mcp__tracker__find']);
  });

  it('is kept with a seat, and a kept seat never gains it', async () => {
    expect(readSeat({ owner: false, groups: ['mcp', 'bogus'], workspace: 'own' })).toEqual({ owner: false, groups: ['mcp'], workspace: 'own' });
    const { access, temp } = accessWith(true, granted);
    const kept = readSeat({ owner: false, groups: [], workspace: 'own' });
    expect([...(await access.forTurn(seat({ senderId: '8' }), tools, temp, kept)).tools!]).toEqual(['memory']);
  });
});
