/**
 * The MCP client against servers built with the SDK: the fixture server over stdio, run by node
 * in the real bubblewrap sandbox, and the same server over Streamable HTTP in this process. Tools
 * listed and called, a tool's error, a call that hangs hitting its time limit, a server that
 * crashes started again with backoff, a list change, what a sandboxed server sees, secrets kept
 * out of results and errors. Every wait is for the hub's own change events.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { McpHub } from '../../src/tools/mcp/mcp-hub.ts';
import type { McpConfig, McpServers } from '../../src/tools/mcp/mcp-settings.ts';
import { RuntimeMcp } from '../../src/runtime/runtime-mcp.ts';
import { toToolDefinition, type Tool, type ToolOutput } from '../../src/tools/tool.ts';
import { startHttpTestServer, stdioTestServer, type HttpTestServer } from '../helpers/mcp-servers.ts';
import { makeTempDir } from './tool-harness.ts';
import { sandboxFor } from './sandbox-harness.ts';

const hubs: McpHub[] = [];
const servers: HttpTestServer[] = [];
afterEach(async () => {
  await Promise.all(hubs.splice(0).map((hub) => hub.close()));
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

/** A hub over `base` (and `profiles`), with OPERATOR_HOME at `home` hidden from its commands. */
function hubOf(home: string, base: McpServers, options: { profiles?: McpConfig['profiles']; env?: NodeJS.ProcessEnv; baseMs?: number } = {}): McpHub {
  const env = options.env ?? process.env;
  const hub = new McpHub({ config: { base, profiles: options.profiles ?? {} }, sandbox: sandboxFor(home, env, { network: false }), env, backoff: { baseMs: options.baseMs ?? 20, stableMs: 3_600_000 } });
  hubs.push(hub);
  return hub;
}

/** Resolves once `check` holds, looked at after every change of the hub's servers. */
function until<T>(hub: McpHub, check: () => T | undefined | false): Promise<T> {
  return new Promise((resolve) => {
    const look = () => {
      const value = check();
      if (value === undefined || value === false) return;
      stop();
      resolve(value);
    };
    const stop = hub.onChange(look);
    look();
  });
}

async function call(hub: McpHub, name: string, args: Record<string, unknown> = {}, profile = 'default'): Promise<{ text: string; isError: boolean }> {
  const tool = hub.tools(profile).find((candidate) => candidate.name === name) as Tool | undefined;
  if (!tool) throw new Error(`${name} is not offered: ${hub.tools(profile).map((candidate) => candidate.name).join(', ')}`);
  const output = (await tool.execute(args, { signal: new AbortController().signal, cwd: '/', toolCallId: 'call-1' })) as ToolOutput;
  const text = typeof output.content === 'string' ? output.content : output.content.map((part) => (part.type === 'text' ? part.text : `[${part.type}]`)).join('');
  return { text, isError: output.isError === true };
}

const names = (hub: McpHub, profile = 'default') => hub.tools(profile).map((tool) => tool.name);

describe('an MCP server run by a command, in the sandbox', () => {
  it('lists its tools with their schemas and calls them: a result, a tool error, a hang cut at the time limit', async () => {
    const home = await makeTempDir('operator-mcp-home-');
    const hub = hubOf(home, { t: stdioTestServer({ timeoutSeconds: 2 }) });
    await hub.start();
    expect(hub.status()[0]).toMatchObject({ name: 't', transport: 'stdio', state: 'ready', restarts: 0 });
    expect(names(hub)).toEqual(['mcp__t__echo', 'mcp__t__fail', 'mcp__t__hang', 'mcp__t__crash', 'mcp__t__add_tool', 'mcp__t__look', 'mcp__t__secret']);
    const echo = hub.tools('default')[0]!;
    expect(toToolDefinition(echo)).toEqual({
      name: 'mcp__t__echo',
      description: 'Tool echo of the MCP server t: Says the text back.',
      parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    });
    // A tool that says it only reads does not act; the others do. Both taint the turn.
    expect(echo.acts).toBe(false);
    expect(hub.tools('default')[1]!.acts).toBe(true);
    expect(echo.untrustedSource?.({})).toBe('the MCP server t');
    expect(echo.runsInSandbox).toBe(true);

    expect(await call(hub, 'mcp__t__echo', { text: 'hello' })).toEqual({ text: 'test-server echoes: hello', isError: false });
    expect(await call(hub, 'mcp__t__fail')).toEqual({ text: 'it failed on purpose', isError: true });
    const hung = await call(hub, 'mcp__t__hang');
    expect(hung).toEqual({ text: 'Error: the MCP server t did not answer hang within 2 s (mcp.servers.t.timeoutSeconds); the call was cancelled', isError: true });
    // The same process answers the next call.
    const pid = hub.server('t')!.pid;
    expect(await call(hub, 'mcp__t__echo', { text: 'still here' })).toEqual({ text: 'test-server echoes: still here', isError: false });
    expect(hub.server('t')!.pid).toBe(pid);
  });

  it('sees only what its entry grants: no OPERATOR_HOME, an allowlisted environment and its own env, its own /tmp', async () => {
    const home = await makeTempDir('operator-mcp-home-');
    const granted = await makeTempDir('operator-mcp-granted-');
    const other = await makeTempDir('operator-mcp-other-');
    mkdirSync(path.join(home, 'state'), { recursive: true });
    writeFileSync(path.join(home, 'gateway.json'), '{"token":"control-token"}');
    const env = { ...process.env, ANTHROPIC_API_KEY: 'sk-ant-should-never-be-seen', OPERATOR_HOME: home, MY_SERVICE_TOKEN: 'service-token-value-42' };
    const hub = hubOf(
      home,
      {
        t: stdioTestServer({
          readOnly: [granted],
          env: { PROBE_PATHS: [home, path.join(home, 'gateway.json'), granted, other].join(':'), SECRET_VALUE: '${MY_SERVICE_TOKEN}', PLAIN: 'yes' },
        }),
      },
      { env },
    );
    await hub.start();
    const seen = JSON.parse((await call(hub, 'mcp__t__look')).text) as { env: string[]; home: string; cwd: string; seen: Record<string, boolean> };
    expect(seen.seen).toEqual({ [home]: false, [path.join(home, 'gateway.json')]: false, [granted]: true, [other]: false });
    expect(seen.env).not.toContain('ANTHROPIC_API_KEY');
    expect(seen.env).not.toContain('OPERATOR_HOME');
    expect(seen.env).not.toContain('MY_SERVICE_TOKEN');
    expect(seen.env).not.toContain('USER');
    expect(seen.env).toEqual(expect.arrayContaining(['PATH', 'HOME', 'PLAIN', 'PROBE_PATHS', 'SECRET_VALUE']));
    expect(seen.home).toBe('/tmp');
    expect(seen.cwd).toBe('/tmp');
    // What the server got through `${NAME}` is a secret: never in what a call returns.
    const secret = await call(hub, 'mcp__t__secret');
    expect(secret.text).toBe('the secret is [REDACTED]');
  });

  it('starts a server that crashes again, with backoff, and offers the tools of the new process', async () => {
    const home = await makeTempDir('operator-mcp-home-');
    const hub = hubOf(home, { t: stdioTestServer() }, { baseMs: 20 });
    await hub.start();
    const first = hub.server('t')!.pid;
    const crashed = await call(hub, 'mcp__t__crash');
    expect(crashed.isError).toBe(true);
    expect(crashed.text).toMatch(/^Error: the MCP server t stopped during the call/);
    const server = await until(hub, () => hub.server('t')!.state === 'ready' && hub.server('t')!.pid !== first && hub.server('t')!);
    expect(server.restarts).toBe(1);
    expect(server.waits).toEqual([20]);
    expect(hub.status()[0]!.lastError).toBeUndefined();
    expect(await call(hub, 'mcp__t__echo', { text: 'back' })).toEqual({ text: 'test-server echoes: back', isError: false });
    // Closing the hub ends the server's process (and the sandbox with it).
    const running = hub.server('t')!.pid!;
    await hub.close();
    expect(() => process.kill(running, 0)).toThrow();
    expect(hub.status()[0]!.state).toBe('closed');
  });

  it('waits longer after each start that fails, and says why it failed', async () => {
    const home = await makeTempDir('operator-mcp-home-');
    const scratch = await makeTempDir('operator-mcp-scratch-');
    const hub = hubOf(home, { t: stdioTestServer({ readWrite: [scratch], env: { CRASH_COUNTER: path.join(scratch, 'starts'), CRASH_TIMES: '3' } }) }, { baseMs: 20 });
    await hub.start();
    expect(hub.status()[0]).toMatchObject({ state: 'waiting', restarts: 1 });
    expect(hub.status()[0]!.lastError).toMatch(/it could not be started: .*the process exited with code 2; its last words: crash 1 of 3 at start/);
    const server = await until(hub, () => hub.server('t')!.state === 'ready' && hub.server('t')!);
    expect(server.waits).toEqual([20, 40, 80]);
    expect(names(hub)).toContain('mcp__t__echo');
  });

  it('refreshes its tools when the server says its list changed', async () => {
    const home = await makeTempDir('operator-mcp-home-');
    const hub = hubOf(home, { t: stdioTestServer() });
    await hub.start();
    const before = hub.tools('default');
    expect(await call(hub, 'mcp__t__add_tool', { tool: 'extra.tool' })).toEqual({ text: 'added extra.tool', isError: false });
    const after = await until(hub, () => hub.tools('default').length > before.length && hub.tools('default'));
    expect(after.map((tool) => tool.name)).toContain('mcp__t__extra_tool');
    expect(await call(hub, 'mcp__t__extra_tool')).toEqual({ text: 'extra.tool ran', isError: false });
    // The list is one array until it changes again (a turn's offer and prompt are kept by it).
    expect(hub.tools('default')).toBe(after);
  });
});

describe('an MCP server reached over Streamable HTTP', () => {
  it('is reached with its headers, the token named by a variable; lists, calls, errors, a hang and a list change', async () => {
    const home = await makeTempDir('operator-mcp-home-');
    const server = await startHttpTestServer({ token: 'http-token-123456' });
    servers.push(server);
    const env = { ...process.env, TRACKER_TOKEN: 'http-token-123456' };
    const hub = hubOf(home, { tracker: { url: server.url, headers: { Authorization: 'Bearer ${TRACKER_TOKEN}' }, approval: 'never', timeoutSeconds: 2 } }, { env });
    await hub.start();
    expect(hub.status()[0]).toMatchObject({ name: 'tracker', transport: 'http', where: new URL(server.url).origin, state: 'ready' });
    expect(server.authorizations.every((header) => header === 'Bearer http-token-123456')).toBe(true);
    expect(await call(hub, 'mcp__tracker__echo', { text: 'over http' })).toEqual({ text: 'http-server echoes: over http', isError: false });
    expect(await call(hub, 'mcp__tracker__fail')).toEqual({ text: 'it failed on purpose', isError: true });
    expect((await call(hub, 'mcp__tracker__hang')).text).toBe('Error: the MCP server tracker did not answer hang within 2 s (mcp.servers.tracker.timeoutSeconds); the call was cancelled');
    expect(hub.tools('default').find((tool) => tool.name === 'mcp__tracker__echo')!.runsInSandbox).toBe(false);
    await call(hub, 'mcp__tracker__add_tool', { tool: 'late' });
    await until(hub, () => names(hub).includes('mcp__tracker__late'));
    expect(await call(hub, 'mcp__tracker__late')).toEqual({ text: 'late ran', isError: false });
  });

  it('says which variable is missing, and never shows a header that is refused', async () => {
    const home = await makeTempDir('operator-mcp-home-');
    const server = await startHttpTestServer({ token: 'the-right-token-1' });
    servers.push(server);
    const env = { ...process.env, WRONG_TOKEN: 'wrong-token-value-77' };
    const hub = hubOf(home, {
      missing: { url: server.url, headers: { Authorization: 'Bearer ${NOT_SET_ANYWHERE}' }, approval: 'never', timeoutSeconds: 5 },
      refused: { url: server.url, headers: { Authorization: 'Bearer ${WRONG_TOKEN}' }, approval: 'never', timeoutSeconds: 5 },
    }, { env, baseMs: 3_600_000 });
    await hub.start();
    const [missing, refused] = hub.status();
    expect(missing).toMatchObject({ state: 'waiting', tools: [] });
    expect(missing!.lastError).toBe("it could not be started: NOT_SET_ANYWHERE is not set in the gateway's environment (named in mcp.servers.missing.headers)");
    expect(refused).toMatchObject({ state: 'waiting', tools: [] });
    expect(refused!.lastError).toMatch(/^it could not be started: .*unauthorized/);
    expect(JSON.stringify(hub.status())).not.toContain('wrong-token-value-77');
  });
});

describe('a published server from the npm registry, run as users would', () => {
  it("runs @modelcontextprotocol/server-filesystem's own command in the sandbox: allowed everything by its arguments, it still sees only what its entry grants", async () => {
    const home = await makeTempDir('operator-mcp-home-');
    const data = await makeTempDir('operator-mcp-data-');
    writeFileSync(path.join(data, 'notes.md'), '# Team notes\nship on Friday\n');
    writeFileSync(path.join(home, 'gateway.json'), '{"token":"control-token-of-the-gateway"}');
    const modules = path.join(import.meta.dirname, '..', '..', 'node_modules');
    // The package's own program (`npm install -g @modelcontextprotocol/server-filesystem` puts it on PATH), told that all of `/` is its to serve.
    const hub = hubOf(home, { fs: { command: path.join(modules, '.bin', 'mcp-server-filesystem'), args: ['/'], env: {}, network: false, readOnly: [modules], readWrite: [data], approval: 'never', timeoutSeconds: 30 } });
    await hub.start();
    expect(hub.status()[0], hub.status()[0]!.lastError).toMatchObject({ state: 'ready' });
    expect(names(hub)).toEqual(expect.arrayContaining(['mcp__fs__read_text_file', 'mcp__fs__write_file', 'mcp__fs__list_directory']));
    expect(await call(hub, 'mcp__fs__read_text_file', { path: path.join(data, 'notes.md') })).toEqual({ text: '# Team notes\nship on Friday\n', isError: false });
    expect(await call(hub, 'mcp__fs__write_file', { path: path.join(data, 'reply.md'), content: 'done' })).toMatchObject({ isError: false });
    // OPERATOR_HOME is not in its sandbox, whatever the server itself would allow.
    const secret = await call(hub, 'mcp__fs__read_text_file', { path: path.join(home, 'gateway.json') });
    expect(secret.isError).toBe(true);
    expect(secret.text).not.toContain('control-token-of-the-gateway');
    expect(secret.text).toMatch(/ENOENT|no such file/i);
  });
});

describe('the hub', () => {
  it("gives each profile its servers, and asks first where a server's approval says so", async () => {
    const home = await makeTempDir('operator-mcp-home-');
    const hub = hubOf(home, { t: stdioTestServer({ approval: ['fail'] }) }, { profiles: { ops: { own: stdioTestServer({ approval: 'always', env: { SERVER_NAME: 'ops-server' } }) } } });
    await hub.ready('ops');
    expect(names(hub, 'default')).not.toContain('mcp__own__echo');
    expect(names(hub, 'ops')).toEqual(expect.arrayContaining(['mcp__t__echo', 'mcp__own__echo']));
    expect(await call(hub, 'mcp__own__echo', { text: 'x' }, 'ops')).toEqual({ text: 'ops-server echoes: x', isError: false });
    expect(hub.status('ops').map((server) => [server.name, server.profile])).toEqual([['t', undefined], ['own', 'ops']]);
    const ask = (profile: string, name: string) => hub.approvalGuardrail(profile).beforeCall?.({ type: 'tool-call', id: '1', name, arguments: {} });
    expect(ask('default', 'mcp__t__fail')).toEqual({ action: 'ask', reason: 'the MCP server t asks a person before fail (mcp.servers.t.approval)' });
    expect(ask('default', 'mcp__t__echo')).toBeUndefined();
    expect(ask('default', 'shell')).toBeUndefined();
    expect(ask('ops', 'mcp__own__echo')).toEqual({ action: 'ask', reason: 'the MCP server own asks a person before each of its tools (mcp.servers.own.approval)' });
  });

  it('loads nothing when no server is configured', async () => {
    const runtime = new RuntimeMcp({ base: {}, profiles: { ops: {} } }, { sandbox: sandboxFor('/nonexistent', process.env), env: process.env, log: () => undefined });
    expect(runtime.configured).toBe(false);
    expect(runtime.hub()).toBeUndefined();
    expect(await runtime.forAgent('default')).toEqual({});
    expect(await runtime.refresh('default')).toBeUndefined();
  });
});
