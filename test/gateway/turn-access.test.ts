import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolGrants, type ToolSeat } from '../../src/gateway/access/tool-grants.ts';
import { keySegment } from '../../src/gateway/dedupe.ts';
import { TurnAccess } from '../../src/gateway/turn-access.ts';
import { createBuiltinTools } from '../../src/tools/builtin/index.ts';
import { createSubagentTools } from '../../src/tools/agents/subagent-tools.ts';
import { defineTool, type Tool } from '../../src/tools/tool.ts';
import { leastSeat, ownerSeat, readSeat } from '../../src/tools/turn-seat.ts';

let root: string | undefined;
afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

const conversationTool = defineTool({ name: 'memory', machine: 'none', description: 'x', parameters: z.object({}), execute: async () => 'ok' });
/** An extension's tool that says nothing of what it does: it may do anything. */
const unknownTool = defineTool({ name: 'deploy', description: 'x', parameters: z.object({}), execute: async () => 'ok' });
const tools: Tool[] = [...createBuiltinTools(), conversationTool, unknownTool];

function setUp(grants: ConstructorParameters<typeof ToolGrants>[0]['grants'] = []) {
  root = mkdtempSync(join(tmpdir(), 'operator-turn-access-'));
  const home = join(root, 'home');
  const cwd = join(root, 'workspace');
  const temp = join(home, 'profiles', 'default', 'temp');
  const access = new TurnAccess({ grants: new ToolGrants({ grants, localWeb: false, sandboxed: true }), cwd, home });
  return { home, cwd, temp, access };
}
const seat = (changes: Partial<ToolSeat & { sessionKey: string }> = {}) => ({ sessionKey: 'telegram:group:-100', platform: 'telegram', scope: 'group' as const, conversationId: '-100', senderId: '7', admin: false, ...changes });

describe('turn access', () => {
  it("gives the owner every tool in the gateway's working directory and the profile's folder", async () => {
    const { cwd, temp, access } = setUp();
    const turn = await access.forTurn(seat({ scope: 'dm', admin: true, sessionKey: 'telegram:dm:7' }), tools, temp);
    expect(turn.tools).toBeUndefined();
    expect(turn.workspace).toEqual({ cwd, roots: [cwd, join(temp, '..')].map((path) => join(path)) });
  });

  it("gives a stranger the conversation's own tools and reading in the conversation's own folder, made before the turn's first tool call", async () => {
    const { home, temp, access } = setUp();
    const turn = await access.forTurn(seat(), tools, temp);
    const own = join(temp, keySegment('telegram:group:-100'));
    expect([...turn.tools!].sort()).toEqual(['glob', 'grep', 'list_dir', 'memory', 'read_file']);
    expect(turn.workspace).toEqual({ cwd: own, roots: [own], hidden: [home] });
    // A turn that runs no tool makes no folder.
    expect(existsSync(own)).toBe(false);
    turn.prepareWorkspace!();
    expect(existsSync(own)).toBe(true);
    turn.prepareWorkspace!();
  });

  it('gives the subagent tools to an agents grant without opening the workspace', async () => {
    const { home, temp, access } = setUp([{ tools: ['agents'], people: ['telegram:7'], scope: 'any' }]);
    const turn = await access.forTurn(seat(), [...tools, ...createSubagentTools()], temp);
    const own = join(temp, keySegment('telegram:group:-100'));
    expect([...turn.tools!].sort()).toEqual(['add_references', 'close_agent', 'glob', 'grep', 'list_dir', 'memory', 'read_file', 'search_references', 'send_input', 'spawn_agent', 'wait']);
    expect(turn.workspace).toEqual({ cwd: own, roots: [own], hidden: [home] });
    // Without the grant, a stranger gets none of them, the reference pool's included.
    const stranger = await access.forTurn(seat({ senderId: '8' }), [...tools, ...createSubagentTools()], temp);
    expect([...stranger.tools!].sort()).toEqual(['glob', 'grep', 'list_dir', 'memory', 'read_file']);
  });

  it('opens the workspace with the granted tools; a tool that says nothing counts as shell', async () => {
    const { home, cwd, temp, access } = setUp([{ tools: ['write'], chats: ['telegram:-100'], scope: 'any' }]);
    const turn = await access.forTurn(seat(), tools, temp);
    expect([...turn.tools!].sort()).toEqual(['apply_patch', 'edit_file', 'glob', 'grep', 'list_dir', 'memory', 'read_file', 'write_file']);
    expect(turn.workspace).toEqual({ cwd, roots: [cwd, join(temp, keySegment('telegram:group:-100'))], hidden: [home] });
    const withShell = setUp([{ tools: ['shell'], people: ['telegram:7'], scope: 'any' }]);
    const shellTurn = await withShell.access.forTurn(seat(), tools, withShell.temp);
    expect(shellTurn.tools).toContain('shell');
    expect(shellTurn.tools).toContain('deploy');
  });

  it("caps a turn by the seat kept from the turn that made it: an admin's group seat has nothing more in their own direct messages", async () => {
    const { home, cwd, temp, access } = setUp([{ tools: ['agents'], people: ['telegram:7'], scope: 'group' }]);
    const adminDm = seat({ scope: 'dm', admin: true, sessionKey: 'telegram:dm:7', conversationId: '7' });
    const withAgents = [...tools, ...createSubagentTools()];
    const inGroup = await access.forTurn(seat({ admin: true }), withAgents, temp);
    expect(inGroup.seat).toEqual({ owner: false, groups: ['agents'], workspace: 'own' });
    // The job the group turn set, run in the admin's direct messages: the group's tools, the DM's own folder.
    const job = await access.forTurn(adminDm, withAgents, temp, inGroup.seat);
    const own = join(temp, keySegment('telegram:dm:7'));
    expect(job.owner).toBe(false);
    expect(job.tools).toBe(inGroup.tools);
    expect(job.workspace).toEqual({ cwd: own, roots: [own], hidden: [home] });
    // The owner's own job there keeps every tool; a member's seat stays a member's.
    const owners = await access.forTurn(adminDm, tools, temp, ownerSeat);
    expect(owners.tools).toBeUndefined();
    expect(owners).toMatchObject({ owner: true, seat: ownerSeat, workspace: { cwd, roots: [cwd, join(temp, '..')] } });
    const member = await access.forTurn(seat({ senderId: '8' }), tools, temp, ownerSeat);
    expect([...member.tools!].sort()).toEqual(['glob', 'grep', 'list_dir', 'memory', 'read_file']);
    expect(member.seat).toEqual(leastSeat);
  });

  it('gives the groups both seats have and the smaller workspace; a job kept without a seat gets the least one', async () => {
    const { home, cwd, temp, access } = setUp([{ tools: ['write', 'shell'], chats: ['telegram:-100'], scope: 'any' }]);
    const kept = { owner: false, groups: ['read', 'shell'], workspace: 'shared' } as const;
    const turn = await access.forTurn(seat(), tools, temp, kept);
    expect(turn.seat).toEqual({ owner: false, groups: ['shell'], workspace: 'shared' });
    expect(turn.tools).toContain('shell');
    expect(turn.tools).not.toContain('write_file');
    expect(turn.workspace).toEqual({ cwd, roots: [cwd, join(temp, keySegment('telegram:group:-100'))], hidden: [home] });
    // A job from before seats were kept, in the owner's direct messages.
    const old = await access.forTurn(seat({ scope: 'dm', admin: true, sessionKey: 'telegram:dm:7', conversationId: '7' }), tools, temp, readSeat(undefined));
    expect(old.seat).toEqual(leastSeat);
    expect([...old.tools!].sort()).toEqual(['glob', 'grep', 'list_dir', 'memory', 'read_file']);
  });

  it('hands equal seats the same set of names', async () => {
    const { temp, access } = setUp();
    const first = await access.forTurn(seat(), tools, temp);
    const second = await access.forTurn(seat({ senderId: '8', sessionKey: 'telegram:group:-200', conversationId: '-200' }), tools, temp);
    expect(first.tools).toBe(second.tools);
  });
});
