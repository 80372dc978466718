/**
 * The runtime offers the `code` tool in the `shell` group (its language server reads what the
 * project reaches): a seat without grants is not offered it, and without bubblewrap a grant of
 * `shell` does not give it either (the owner's alone, as `shell`). The workspace rules of
 * read_file guard it besides: asked from such a seat's own folder it cannot reach a file outside
 * it, and no seat reaches operator's private state. Its servers (TypeScript's, and Python's pylsp
 * from the owner's seat) run in the runtime's sandbox; the runtime's close stops them.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, readFile, readdir, readlink, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ToolGrants } from '../../src/gateway/access/tool-grants.ts';
import { TurnAccess } from '../../src/gateway/turn-access.ts';
import { Runtime } from '../../src/runtime/runtime.ts';
import { defaultSandboxSettings, type SandboxSettings } from '../../src/tools/sandbox/sandbox.ts';
import type { Tool, TurnContext } from '../../src/tools/tool.ts';
import { createTempHome, removeTempHome } from '../helpers/temp-home.ts';
import { callTool, goneWithin, textOf } from './tool-harness.ts';

describe('runtime code tool', { timeout: 60_000 }, () => {
  let home: string | undefined;
  let cwd: string | undefined;
  let runtime: Runtime | undefined;
  afterEach(async () => {
    await runtime?.close();
    runtime = undefined;
    removeTempHome(home);
    if (cwd) await rm(cwd, { recursive: true, force: true });
  });

  const start = async (sandbox?: SandboxSettings) => {
    home = createTempHome();
    cwd = await realpath(await mkdtemp(join(tmpdir(), 'operator-code-runtime-')));
    mkdirSync(join(cwd, 'src'));
    writeFileSync(join(cwd, 'package.json'), '{"name":"app","private":true,"type":"module"}');
    writeFileSync(join(cwd, 'src', 'index.ts'), 'export const answer: number = 42;\n');
    runtime = new Runtime({ env: { OPERATOR_HOME: home, HOME: home, ANTHROPIC_API_KEY: 'sk-test', OPERATOR_REVIEW_EVERY: '0', PATH: process.env.PATH }, cwd, requireModel: false, sandbox });
    const { agent } = await runtime.createAgent({ sessionKey: 'telegram:group:-100', profile: 'default' });
    const { resources } = await runtime.resources('default');
    return { runtime, agent, code: agent.tools.find((tool) => tool.name === 'code') as Tool, tempDirectory: resources.tempDirectory, home, cwd };
  };

  it('offers code in the shell group, not to a seat without grants, which cannot ask about a file outside its own folder either', async () => {
    const { agent, code, tempDirectory, home, cwd } = await start();
    expect(code).toBeDefined();
    expect(code.machine).toBe('shell');
    const access = new TurnAccess({ grants: new ToolGrants({ grants: [], localWeb: false, sandboxed: true }), cwd, home });
    const seat = { sessionKey: 'telegram:group:-100', platform: 'telegram', scope: 'group' as const, conversationId: '-100', senderId: '7', admin: false };
    const offered = await access.forTurn(seat, agent.tools, tempDirectory);
    expect(offered.tools).not.toContain('code');
    expect(offered.tools).toContain('read_file');
    expect(offered.workspace!.roots).toEqual([offered.workspace!.cwd]);
    const turn: TurnContext = { sessionKey: seat.sessionKey, platform: 'telegram', senderId: '7', admin: false, scheduled: false, ...offered };
    const outside = await callTool(code, { action: 'hover', path: join(cwd, 'src', 'index.ts'), line: 1, symbol: 'answer' }, { cwd: offered.workspace!.cwd, turn });
    expect(outside.isError).toBe(true);
    expect(textOf(outside)).toContain('is outside the workspace');
    const climbing = await callTool(code, { action: 'diagnostics', path: '../../../../../src/index.ts' }, { cwd: offered.workspace!.cwd, turn });
    expect(textOf(climbing)).toMatch(/outside the workspace|not open to this conversation/);
    // Nobody reaches operator's private state, not even the owner's seat.
    mkdirSync(join(home, 'state'), { recursive: true });
    writeFileSync(join(home, 'state', 'keys.ts'), 'export const key = "secret";\n');
    const owner = await access.forTurn({ ...seat, scope: 'dm', admin: true, sessionKey: 'telegram:dm:7' }, agent.tools, tempDirectory);
    const ownerTurn: TurnContext = { sessionKey: 'telegram:dm:7', platform: 'telegram', senderId: '7', admin: true, scheduled: false, ...owner };
    const privateState = await callTool(code, { action: 'diagnostics', path: join(home, 'state', 'keys.ts') }, { cwd, turn: ownerTurn });
    expect(textOf(privateState)).toContain("operator's private state");
  });

  it('without bubblewrap, a grant of shell does not give a member code; the owner keeps it', async () => {
    const { runtime, agent, tempDirectory, home, cwd } = await start({ ...defaultSandboxSettings, mode: 'off' });
    expect(runtime.sandbox.kind).toBe('none');
    const seat = { sessionKey: 'telegram:group:-100', platform: 'telegram', scope: 'group' as const, conversationId: '-100', senderId: '7', admin: false };
    const grants = [{ tools: ['shell' as const], chats: ['telegram:-100'], scope: 'any' as const }];
    // As the gateway decides at start: sandboxed only with bubblewrap.
    const unsandboxed = new TurnAccess({ grants: new ToolGrants({ grants, localWeb: false, sandboxed: runtime.sandbox.kind === 'bubblewrap' }), cwd, home });
    expect((await unsandboxed.forTurn(seat, agent.tools, tempDirectory)).tools).not.toContain('code');
    const owner = await unsandboxed.forTurn({ ...seat, scope: 'dm', admin: true, sessionKey: 'telegram:dm:7', conversationId: '7' }, agent.tools, tempDirectory);
    expect(owner.tools === undefined || owner.tools.has('code')).toBe(true);
    const sandboxed = new TurnAccess({ grants: new ToolGrants({ grants, localWeb: false, sandboxed: true }), cwd, home });
    expect((await sandboxed.forTurn(seat, agent.tools, tempDirectory)).tools).toContain('code');
  });

  it('answers in the working directory from a server in bubblewrap, and stops it when the runtime closes', async () => {
    const { runtime, code, cwd } = await start();
    expect(runtime.sandbox.kind).toBe('bubblewrap');
    const output = await callTool(code, { action: 'hover', path: 'src/index.ts', line: 1, symbol: 'answer' }, { cwd });
    expect(textOf(output)).toContain('const answer: number');
    const server = await serverPidIn(cwd);
    expect(server).toBeDefined();
    expect(await ancestorNames(server!)).toContain('bwrap');
    await runtime.close();
    // bwrap has exited; the kernel ends the rest of its namespace right after, not in the same instant.
    expect(await goneWithin(server!, 10_000)).toBe(true);
  });

  it("answers the owner's seat about Python from the machine's pylsp in bubblewrap, and stops it when the runtime closes", async () => {
    const { runtime, agent, code, tempDirectory, home, cwd } = await start();
    writeFileSync(join(cwd, 'util.py'), 'def double(n):\n    return n * 2\n');
    writeFileSync(join(cwd, 'run.py'), 'from util import double\n\nprint(double(2), later)\n');
    const access = new TurnAccess({ grants: new ToolGrants({ grants: [], localWeb: false, sandboxed: true }), cwd, home });
    const owner = await access.forTurn({ sessionKey: 'telegram:dm:7', platform: 'telegram', scope: 'dm', conversationId: '7', senderId: '7', admin: true }, agent.tools, tempDirectory);
    expect(owner.tools === undefined || owner.tools.has('code')).toBe(true);
    const turn: TurnContext = { sessionKey: 'telegram:dm:7', platform: 'telegram', senderId: '7', admin: true, scheduled: false, ...owner };
    expect(textOf(await callTool(code, { action: 'definition', path: 'run.py', line: 3, symbol: 'double' }, { cwd, turn }))).toBe('util.py:1:5  def double(n):');
    expect(textOf(await callTool(code, { action: 'diagnostics', path: 'run.py' }, { cwd, turn }))).toBe("run.py:3:18 error pyflakes undefined name 'later'");
    const server = await serverPidIn(cwd, 'pylsp');
    expect(server).toBeDefined();
    expect(await ancestorNames(server!)).toContain('bwrap');
    await runtime.close();
    expect(await goneWithin(server!, 10_000)).toBe(true);
  });
});

/** The command names of a process's ancestors, from /proc. */
async function ancestorNames(pid: number): Promise<string[]> {
  const names: string[] = [];
  for (let current = pid; current > 1; ) {
    const status = await readFile(`/proc/${current}/status`, 'utf8');
    current = Number(/^PPid:\s+(\d+)/m.exec(status)![1]);
    if (current > 0) names.push((await readFile(`/proc/${current}/comm`, 'utf8')).trim());
  }
  return names;
}

/** The pid of the language server (`program` in its command line) whose working directory is `folder`, from /proc. */
async function serverPidIn(folder: string, program = 'typescript-language-server'): Promise<number | undefined> {
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const where = await readlink(`/proc/${entry}/cwd`).catch(() => undefined);
    if (where !== folder) continue;
    const command = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (command.includes(program)) return Number(entry);
  }
  return undefined;
}
