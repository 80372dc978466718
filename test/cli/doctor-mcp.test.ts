/**
 * `operator doctor` with MCP servers in operator.json, run as a person runs it: each server started
 * as the gateway would (the fixture server over stdio in the sandbox, the same server over
 * Streamable HTTP with its token named by a variable), its tools listed; a server that cannot
 * start fails its line with why; `--offline` leaves the HTTP one alone; no token is printed.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOperator, type OperatorRun } from '../helpers/operator-process.ts';
import { startHttpTestServer, stdioTestServer, type HttpTestServer } from '../helpers/mcp-servers.ts';
import { createTempHome, removeTempHome } from '../helpers/temp-home.ts';

const token = 'doctor-mcp-token-13579';
let home: string;
let http: HttpTestServer;

beforeAll(async () => {
  home = createTempHome('operator-doctor-mcp-');
  http = await startHttpTestServer({ token });
  writeFileSync(
    join(home, 'operator.json'),
    JSON.stringify({
      browser: { enabled: false },
      mcp: {
        servers: {
          local: stdioTestServer(),
          remote: { url: http.url, headers: { Authorization: 'Bearer ${REMOTE_TOKEN}' } },
          broken: { command: 'no-such-program-anywhere' },
        },
      },
    }),
  );
});
afterAll(async () => {
  await http.close();
  removeTempHome(home);
});

function doctor(args: string[]): Promise<OperatorRun> {
  return runOperator(['doctor', ...args], { HOME: home, OPERATOR_HOME: home, REMOTE_TOKEN: token });
}

function line(run: OperatorRun, name: string): string {
  const found = run.stdout.split('\n').find((candidate) => candidate.replace(/^\S+\s+/, '').startsWith(`${name}:`));
  if (!found) throw new Error(`no line for ${name} in:\n${run.stdout}\n${run.stderr}`);
  return found;
}

describe('operator doctor with MCP servers', () => {
  it('starts each server, lists its tools, and fails the one that cannot start', async () => {
    const run = await doctor([]);
    expect(line(run, 'MCP local')).toBe('OK    MCP local: started in the sandbox, 7 tools: mcp__local__echo, mcp__local__fail, mcp__local__hang, mcp__local__crash, mcp__local__add_tool, mcp__local__look, mcp__local__secret');
    expect(line(run, 'MCP remote')).toBe(`OK    MCP remote: started at ${new URL(http.url).origin}, 6 tools: mcp__remote__echo, mcp__remote__fail, mcp__remote__hang, mcp__remote__add_tool, mcp__remote__look, mcp__remote__secret`);
    expect(line(run, 'MCP broken')).toMatch(/^FAIL {2}MCP broken: could not be started in the sandbox: .*no-such-program-anywhere: No such file or directory.*: check mcp\.servers\.broken in operator\.json$/);
    expect(run.code).toBe(1);
    expect(run.stdout + run.stderr).not.toContain(token);
  });

  it('leaves the servers reached over the network alone with --offline', async () => {
    const before = http.authorizations.length;
    const run = await doctor(['--offline']);
    expect(line(run, 'MCP local')).toMatch(/^OK {4}MCP local: started in the sandbox, 7 tools/);
    expect(line(run, 'MCP remote')).toBe(`WARN  MCP remote: not checked (--offline): reached at ${new URL(http.url).origin}`);
    expect(http.authorizations.length).toBe(before);
  });
});
