/**
 * A stdio MCP server that writes its last words to stderr as it exits: the transport
 * (src/tools/mcp/sandboxed-stdio.ts) tells of its end only once that pipe has closed, so the
 * words are there when its end is reported (the process's 'exit' may come before them).
 */
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { SandboxedStdioTransport } from '../../src/tools/mcp/sandboxed-stdio.ts';

describe('a stdio MCP server that ends', () => {
  it('is reported ended with what it wrote to stderr last, written by a process it left behind', async () => {
    // The shell exits at once; a process it started writes to the same stderr after.
    const transport = new SandboxedStdioTransport({ file: '/bin/sh', args: ['-c', '(echo "its last words" >&2) & exit 3'], env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, cwd: tmpdir() });
    const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
    await transport.start();
    await closed;
    expect(transport.exit).toBe('exited with code 3');
    expect(transport.stderr).toContain('its last words');
  });
});
