/**
 * Fail closed: where nothing confines the file and command tools (no bubblewrap), seats other
 * than the owner's get none of them, whatever the grants say; the owner keeps them all.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ToolGrants, type ToolSeat } from '../../src/gateway/access/tool-grants.ts';
import { TurnAccess } from '../../src/gateway/turn-access.ts';
import { createBuiltinTools } from '../../src/tools/builtin/index.ts';
import { defineTool, type Tool } from '../../src/tools/tool.ts';

/** Every folder a test made (`accessWith` runs more than once in a test). */
const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

const conversationTool = defineTool({ name: 'memory', machine: 'none', description: 'x', parameters: z.object({}), execute: async () => 'ok' });
const tools: Tool[] = [...createBuiltinTools(), conversationTool];

function accessWith(confined: boolean) {
  const root = mkdtempSync(join(tmpdir(), 'operator-turn-unconfined-'));
  roots.push(root);
  const grants = new ToolGrants({ grants: [{ tools: ['read', 'write', 'shell'], people: ['telegram:8'], scope: 'any' }], localWeb: false, sandboxed: confined });
  const access = new TurnAccess({ grants, cwd: join(root, 'workspace'), home: join(root, 'home'), confined });
  return { access, temp: join(root, 'home', 'profiles', 'default', 'temp') };
}
const seat = (changes: Partial<ToolSeat & { sessionKey: string }> = {}) => ({ sessionKey: 'telegram:group:-100', platform: 'telegram', scope: 'group' as const, conversationId: '-100', senderId: '7', admin: false, ...changes });

describe('turn access without an operating-system boundary', () => {
  it("offers a stranger's group no file tool at all, where a confined gateway offers reading", async () => {
    const unconfined = accessWith(false);
    expect([...(await unconfined.access.forTurn(seat(), tools, unconfined.temp)).tools!]).toEqual(['memory']);
    const confined = accessWith(true);
    expect([...(await confined.access.forTurn(seat(), tools, confined.temp)).tools!].sort()).toEqual(['glob', 'grep', 'list_dir', 'memory', 'read_file']);
  });

  it('offers a member granted read, write and shell none of them', async () => {
    const { access, temp } = accessWith(false);
    expect([...(await access.forTurn(seat({ senderId: '8' }), tools, temp)).tools!]).toEqual(['memory']);
    const confined = accessWith(true);
    expect((await confined.access.forTurn(seat({ senderId: '8' }), tools, confined.temp)).tools!.has('write_file')).toBe(true);
  });

  it("keeps every tool in the owner's seat", async () => {
    const { access, temp } = accessWith(false);
    const turn = await access.forTurn(seat({ scope: 'dm', admin: true, sessionKey: 'telegram:dm:7' }), tools, temp);
    expect(turn.tools).toBeUndefined();
  });
});

describe("an extension's tool that says it reads", () => {
  it('is offered to other seats only by a grant of read: its code runs in the gateway, not in the sandbox', async () => {
    const { createExtension } = await import('../../src/agent/extensions.ts');
    const reader = defineTool({ name: 'read_notes', machine: 'read', description: 'x', parameters: z.object({}), execute: async () => 'ok' });
    const extension = await createExtension('notes', (api) => api.registerTool(reader));
    const all = [...tools, ...extension.tools];
    const root = mkdtempSync(join(tmpdir(), 'operator-turn-extension-'));
    roots.push(root);
    const grants = new ToolGrants({ grants: [{ tools: ['read'], people: ['telegram:8'], scope: 'any' }], localWeb: false, sandboxed: true });
    const access = new TurnAccess({ grants, cwd: join(root, 'workspace'), home: join(root, 'home') });
    const temp = join(root, 'home', 'profiles', 'default', 'temp');
    expect((await access.forTurn(seat(), all, temp)).tools!.has('read_notes')).toBe(false);
    expect((await access.forTurn(seat(), all, temp)).tools!.has('read_file')).toBe(true);
    expect((await access.forTurn(seat({ senderId: '8' }), all, temp)).tools!.has('read_notes')).toBe(true);
  });
});
