import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

let child: ChildProcessWithoutNullStreams | undefined;
let home: string | undefined;
afterEach(() => {
  child?.kill('SIGKILL');
  child = undefined;
  if (home) rmSync(home, { recursive: true, force: true });
  home = undefined;
});

function start(env: Record<string, string> = {}) {
  home = mkdtempSync(join(tmpdir(), 'operator-gateway-'));
  const proc = spawn(process.execPath, ['bin/operator.js', 'start'], {
    env: { PATH: process.env.PATH, HOME: home, OPERATOR_HOME: home, PORT: '0', ...env },
  });
  child = proc;
  let output = '';
  let errors = '';
  proc.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  proc.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  return {
    proc,
    exited,
    output: () => output,
    errors: () => errors,
    async url(): Promise<string> {
      for (let i = 0; i < 1500; i++) {
        const match = /web chat: (http:\/\/localhost:\d+)\//.exec(output);
        if (match) return match[1]!;
        if (proc.exitCode !== null) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      throw new Error(`gateway did not start:\n${output}\n${errors}`);
    },
  };
}

describe('operator start', () => {
  it('serves the web chat without any credentials, says what enables what, answers /healthz, stops on SIGTERM', async () => {
    const gateway = start();
    const url = await gateway.url();
    expect(gateway.output()).toContain('TELEGRAM_BOT_TOKEN');
    expect(gateway.output()).toContain('ANTHROPIC_API_KEY');
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', channels: ['web'] });
    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    gateway.proc.kill('SIGTERM');
    expect(await gateway.exited).toBe(0);
  });

  it('refuses an invalid configuration file with its path and reason', async () => {
    home = mkdtempSync(join(tmpdir(), 'operator-gateway-'));
    writeFileSync(join(home, 'operator.json'), JSON.stringify({ port: 'eighty' }));
    const proc = spawn(process.execPath, ['bin/operator.js', 'start'], { env: { PATH: process.env.PATH, HOME: home, OPERATOR_HOME: home } });
    child = proc;
    let errors = '';
    proc.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    const code = await new Promise((resolve) => proc.on('exit', resolve));
    expect(code).toBe(1);
    expect(errors).toContain('operator.json');
    expect(errors).toContain('port');
  });
});
