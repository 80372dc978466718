/**
 * Start-up: from spawning `operator chat` to the first streamed answer, against the fake model in
 * its own process, minus the floor of spawning a bare `node -e 0`. Also the peak resident memory
 * of that process after its first answer. Runs the compiled dist/ when it is fresh (as after
 * `npm install`), else the sources through tsx; the note says which.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeModelProcess } from './fake-model-process.ts';
import { compiledIsFresh, root } from './gateway-process.ts';
import { elapsedMs, median, type BenchResult } from './lib.ts';

const RUNS = 7;

export default async function run(): Promise<BenchResult[]> {
  const remote = await startFakeModelProcess({ text: 'Hello from the fake model.' });
  const home = mkdtempSync(join(tmpdir(), 'operator-bench-start-'));
  try {
    const floor: number[] = [];
    const first: number[] = [];
    const rss: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      floor.push(await timeBareNode());
      const result = await timeFirstAnswer(remote.anthropicBaseURL, home);
      first.push(result.ms);
      rss.push(result.rssKb);
    }
    const added = median(first) - median(floor);
    const mode = compiledIsFresh() ? 'compiled dist/' : 'sources through tsx (run npm run build for the compiled path)';
    return [
      { name: 'bare node start (floor, median)', value: median(floor), unit: 'ms' },
      { name: 'operator chat: spawn to first answer (median)', value: median(first), unit: 'ms', note: mode },
      { name: 'start-up added beyond the floor (median)', value: added, unit: 'ms', target: '< 1000 ms', pass: added < 1000 },
      { name: 'resident memory after the first answer (median)', value: median(rss) / 1024, unit: 'MB' },
    ];
  } finally {
    rmSync(home, { recursive: true, force: true });
    await remote.close();
  }
}

function timeBareNode(): Promise<number> {
  const start = process.hrtime.bigint();
  const child = spawn(process.execPath, ['-e', '0']);
  return new Promise((resolve) => child.on('exit', () => resolve(elapsedMs(start))));
}

function timeFirstAnswer(baseURL: string, home: string): Promise<{ ms: number; rssKb: number }> {
  const start = process.hrtime.bigint();
  const child = spawn(process.execPath, [join(root, 'bin', 'operator.js'), 'chat', '--session', `bench:${Date.now()}`], {
    env: { PATH: process.env.PATH, HOME: home, OPERATOR_HOME: home, ANTHROPIC_API_KEY: 'bench-key', ANTHROPIC_BASE_URL: baseURL },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  child.stdin!.write('hi\n');
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Hello from the fake model.')) {
        const ms = elapsedMs(start);
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        const rssKb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
        child.kill('SIGKILL');
        resolve({ ms, rssKb });
      }
    });
    child.on('exit', (code) => {
      if (!output.includes('Hello from the fake model.')) reject(new Error(`operator chat exited with ${code}: ${output}`));
    });
  });
}
