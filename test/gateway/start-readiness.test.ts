/**
 * `/healthz` of `operator start` means ready: while a channel is still starting (here Telegram's
 * webhook registration, held by the fake Bot API), it answers 503; once every channel is up, 200.
 * A channel that cannot start ends the command with exit code 1.
 */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeTelegramServer } from '../fakes/fake-telegram-server.ts';
import type { FakeTelegram } from '../fakes/fake-telegram-server.ts';

const wait = 20_000;
let telegram: FakeTelegram | undefined;
let child: ChildProcessWithoutNullStreams | undefined;
let home: string | undefined;

afterEach(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
  child = undefined;
  await telegram?.close();
  telegram = undefined;
  if (home) rmSync(home, { recursive: true, force: true });
  home = undefined;
});

/** A TCP port free at the moment. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** `operator start` with Telegram by webhook against the fake: its URL, its output, and a wait for its banner. */
async function startWithTelegramWebhook(fake: FakeTelegram): Promise<{ url: string; output: () => string; running: () => Promise<void> }> {
  home = mkdtempSync(join(tmpdir(), 'operator-start-readiness-'));
  const port = await freePort();
  const proc = spawn(process.execPath, ['bin/operator.js', 'start'], {
    env: {
      PATH: process.env.PATH,
      HOME: home,
      OPERATOR_HOME: home,
      PORT: String(port),
      TELEGRAM_BOT_TOKEN: fake.token,
      TELEGRAM_API_ROOT: fake.apiRoot,
      TELEGRAM_WEBHOOK_URL: `http://127.0.0.1:${port}/webhooks/telegram`,
      TELEGRAM_WEBHOOK_SECRET: 'readiness_secret',
    },
  });
  child = proc;
  let output = '';
  proc.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  proc.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const running = async () => {
    for (let i = 0; i < wait / 10 && !output.includes('operator is running'); i++) await new Promise((resolve) => setTimeout(resolve, 10));
    if (!output.includes('operator is running')) throw new Error(`the gateway did not start:\n${output}`);
  };
  return { url: `http://127.0.0.1:${port}`, output: () => output, running };
}

describe('operator start readiness', () => {
  it('answers /healthz with 503 while Telegram is still starting', async () => {
    telegram = await startFakeTelegramServer();
    telegram.holdNext('setWebhook');
    const gateway = await startWithTelegramWebhook(telegram);
    await telegram.waitFor((fake) => fake.callsOf('setWebhook').length > 0, wait).catch(() => {
      throw new Error(`the gateway never registered its webhook:\n${gateway.output()}`);
    });
    const health = await fetch(`${gateway.url}/healthz`);
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ status: 'starting' });
    expect(gateway.output()).not.toContain('operator is running');
  });

  it('exits 1 with the reason when a channel cannot start, rather than keep listening', async () => {
    telegram = await startFakeTelegramServer();
    telegram.failNext('getMe', { status: 401, description: 'Unauthorized' });
    const gateway = await startWithTelegramWebhook(telegram);
    const code = await new Promise((resolve) => child!.once('exit', resolve));
    expect(code).toBe(1);
    expect(gateway.output()).toContain('Telegram getMe failed');
  });

  it('answers /healthz with 200 once every channel is up', async () => {
    telegram = await startFakeTelegramServer();
    const gateway = await startWithTelegramWebhook(telegram);
    await gateway.running();
    const health = await fetch(`${gateway.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok', channels: ['web', 'telegram'] });
  });
});
