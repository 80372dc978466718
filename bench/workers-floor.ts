/**
 * The throughput floor beside the Worker and the gateway: the very relay `gateway.bench.ts` uses
 * (`gateway-floor-relay.ts`: webhook in, a captured model request replayed through the SDK,
 * `sendMessage` out, nothing else), started the same way, so both benchmarks measure against the
 * same floor. It speaks the same webhook, so it is driven as any other {@link Target}.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FakeModelProcess } from './fake-model-process.ts';
import { freePort, root } from './gateway-process.ts';
import type { FakeTelegramProcess } from './gateway-telegram-process.ts';
import { SECRET, type Target } from './workers-turns.ts';

/** Starts the floor relay replaying `modelBody` (a request body the fake model received). */
export async function startFloorRelay(model: Pick<FakeModelProcess, 'anthropicBaseURL'>, telegram: FakeTelegramProcess, modelBody: string): Promise<Target & { close(): Promise<void> }> {
  const folder = mkdtempSync(join(tmpdir(), 'operator-bench-floor-'));
  const bodyFile = join(folder, 'body.json');
  writeFileSync(bodyFile, modelBody);
  const port = await freePort();
  const relay = spawn(process.execPath, [join(root, 'bin', 'run-ts.js'), join(root, 'bench', 'gateway-floor-relay.ts')], {
    env: { PATH: process.env.PATH, PORT: String(port), SECRET, ANTHROPIC_BASE_URL: model.anthropicBaseURL, TELEGRAM_API_ROOT: telegram.apiRoot, TELEGRAM_BOT_TOKEN: telegram.token, MODEL_BODY_FILE: bodyFile },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => relay.once('exit', () => resolve()));
  try {
    await new Promise<void>((resolve, reject) => {
      relay.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
      relay.once('exit', (code) => reject(new Error(`floor relay exited with ${code}`)));
    });
  } catch (error) {
    rmSync(folder, { recursive: true, force: true });
    throw error;
  }
  return {
    name: 'floor relay',
    origin: `http://127.0.0.1:${port}`,
    pid: relay.pid!,
    async close() {
      if (relay.exitCode === null && relay.signalCode === null) relay.kill('SIGTERM');
      await exited;
      rmSync(folder, { recursive: true, force: true });
    },
  };
}
