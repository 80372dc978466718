/**
 * `mcp` in operator.json: a command or a URL per server, with defaults; problems named by their
 * path, never quoting a value; a profile's own servers over the top-level ones; and what the
 * start-up output says about them.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/core/errors.ts';
import { loadConfig, mcpConfigOf } from '../../src/gateway/config/index.ts';
import { describeMcpSetup, hasMcpServers, serversOf } from '../../src/tools/mcp/mcp-settings.ts';

let home: string;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'operator-mcp-config-'));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

function withFile(content: unknown) {
  writeFileSync(join(home, 'operator.json'), JSON.stringify(content));
  return loadConfig({ OPERATOR_HOME: home }).config;
}

function problems(content: unknown): string {
  try {
    withFile(content);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return (error as Error).message;
  }
  throw new Error('expected a ConfigurationError');
}

describe('mcp in operator.json', () => {
  it('has no servers by default, so nothing of MCP loads', () => {
    const config = withFile({});
    expect(config.mcp).toEqual({ servers: {} });
    expect(hasMcpServers(mcpConfigOf(config))).toBe(false);
    expect(describeMcpSetup(mcpConfigOf(config), 'bubblewrap')).toBeUndefined();
  });

  it('takes a command and a URL, with their defaults, and a profile over them', () => {
    const config = withFile({
      mcp: {
        servers: {
          fs: { command: 'mcp-server-filesystem', args: ['/srv/data'], readOnly: ['/srv/data'] },
          tracker: { url: 'https://mcp.example.com/mcp?team=7', headers: { Authorization: 'Bearer ${TRACKER_TOKEN}' }, approval: ['create_issue'], timeoutSeconds: 15 },
        },
      },
      profileSettings: { ops: { mcp: { servers: { fs: { command: 'other-fs', approval: 'always' } } } } },
    });
    expect(config.mcp.servers.fs).toEqual({ command: 'mcp-server-filesystem', args: ['/srv/data'], env: {}, network: false, readOnly: ['/srv/data'], readWrite: [], approval: 'never', timeoutSeconds: 60 });
    expect(config.mcp.servers.tracker).toEqual({ url: 'https://mcp.example.com/mcp?team=7', headers: { Authorization: 'Bearer ${TRACKER_TOKEN}' }, approval: ['create_issue'], timeoutSeconds: 15 });
    const mcp = mcpConfigOf(config);
    expect(serversOf(mcp, 'default')).toBe(mcp.base);
    expect(serversOf(mcp, 'ops').fs).toMatchObject({ command: 'other-fs', approval: 'always' });
    expect(serversOf(mcp, 'ops').tracker).toBe(mcp.base.tracker);
    // Never the arguments, the URL's path and query, or a header.
    expect(describeMcpSetup(mcp, 'bubblewrap')).toBe(
      '3 servers: fs (a command, in the sandbox), tracker (https://mcp.example.com), fs (a command, in the sandbox); they start now, /mcp shows them',
    );
    expect(describeMcpSetup(mcp, 'none')).toContain("fs (a command, NOT sandboxed: its tools are the owner's alone)");
  });

  it('names each problem by its path, without quoting what was written', () => {
    const text = problems({
      mcp: {
        servers: {
          both: { command: 'x', url: 'https://example.com/mcp' },
          neither: { args: ['a'] },
          mixed: { url: 'https://example.com/mcp', env: { A: 'b' } },
          'bad__name': { command: 'x' },
          notHttp: { url: 'file:///etc/passwd' },
          typo: { command: 'x', aprooval: 'always' },
        },
      },
    });
    expect(text).toContain('mcp.servers.both: give either "command" (a server operator starts) or "url" (one it reaches over HTTP)');
    expect(text).toContain('mcp.servers.neither: give either "command"');
    expect(text).toContain('mcp.servers.mixed.env: not a setting of a server with "url"');
    expect(text).toContain('mcp.servers.bad__name');
    expect(text).toContain('mcp.servers.notHttp.url');
    expect(text).toMatch(/mcp\.servers\.typo\.aprooval: unknown setting; did you mean approval\?/);
    expect(text).not.toContain('/etc/passwd');
  });

  it('takes mcp as a tool group in grants', () => {
    expect(withFile({ tools: { grants: [{ tools: ['mcp'], people: ['telegram:1'] }] } }).tools.grants[0]!.tools).toEqual(['mcp']);
  });
});
