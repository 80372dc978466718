/**
 * The command sandbox: what the `shell` tool adds per command when it runs in bubblewrap, beyond
 * a bare spawn of the same command (`/bin/sh -c true`, spawned and waited for as node does). The
 * four are timed in turn, so load from elsewhere hits them alike: the floor, the tool with the
 * `none` sandbox (the tool's own cost), and the tool in bubblewrap with a gateway-like workspace
 * (OPERATOR_HOME inside it, hidden, and a conversation folder inside that bound again), its
 * network shared with this machine (no slirp4netns) and its network its own (slirp4netns, the
 * default where installed).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createShellTool } from '../src/tools/builtin/shell.ts';
import { createSandbox } from '../src/tools/sandbox/create-sandbox.ts';
import { defaultSandboxSettings } from '../src/tools/sandbox/sandbox.ts';
import type { ToolContext } from '../src/tools/tool.ts';
import { elapsedMs, median, quantile, type BenchResult } from './lib.ts';

const RUNS = 300;
const WARMUP = 20;

export default async function run(): Promise<BenchResult[]> {
  const workspace = mkdtempSync(join(tmpdir(), 'operator-bench-sandbox-'));
  const home = join(workspace, '.operator');
  const conversation = join(home, 'profiles', 'default', 'temp', 'telegram-group-1');
  mkdirSync(join(home, 'state'), { recursive: true });
  mkdirSync(conversation, { recursive: true });
  try {
    const env = { PATH: process.env.PATH, LANG: 'C.UTF-8' };
    const detectStart = process.hrtime.bigint();
    const sandbox = createSandbox(defaultSandboxSettings, { hidden: [home], env, slirp4netns: '/nonexistent/slirp4netns' });
    const detectMs = elapsedMs(detectStart);
    if (sandbox.kind !== 'bubblewrap') throw new Error(`the sandbox bench needs bubblewrap: ${sandbox.describe()}`);
    const ownNetwork = createSandbox(defaultSandboxSettings, { hidden: [home], env });
    if (!ownNetwork.describe().includes('slirp4netns')) throw new Error(`the sandbox bench needs slirp4netns: ${ownNetwork.describe()}`);
    const unsandboxed = createSandbox({ ...defaultSandboxSettings, mode: 'off' }, { hidden: [home], env });
    const sandboxedShell = createShellTool({ sandbox, shell: '/bin/sh' });
    const bareShell = createShellTool({ sandbox: unsandboxed, shell: '/bin/sh' });
    const ownNetworkShell = createShellTool({ sandbox: ownNetwork, shell: '/bin/sh' });
    const context: ToolContext = {
      signal: new AbortController().signal,
      cwd: workspace,
      toolCallId: 'bench',
      turn: { sessionKey: 'telegram:group:1', platform: 'telegram', senderId: '7', admin: false, scheduled: false, workspace: { cwd: workspace, roots: [workspace, conversation] } },
    };
    const timed = async (fn: () => Promise<unknown>) => {
      const start = process.hrtime.bigint();
      await fn();
      return elapsedMs(start);
    };

    const floor: number[] = [];
    const none: number[] = [];
    const bubblewrap: number[] = [];
    const own: number[] = [];
    for (let i = 0; i < WARMUP + RUNS; i++) {
      const f = await timed(() => bareSpawn(env));
      const n = await timed(() => bareShell.execute({ command: 'true' }, context));
      const b = await timed(() => sandboxedShell.execute({ command: 'true' }, context));
      const o = await timed(() => ownNetworkShell.execute({ command: 'true' }, context));
      if (i < WARMUP) continue;
      floor.push(f);
      none.push(n);
      bubblewrap.push(b);
      own.push(o);
    }

    const added = median(bubblewrap) - median(floor);
    const addedP90 = quantile(bubblewrap, 0.9) - quantile(floor, 0.9);
    return [
      { name: 'bare spawn of /bin/sh -c true (floor, median)', value: median(floor), unit: 'ms' },
      { name: 'bare spawn of /bin/sh -c true (floor, p90)', value: quantile(floor, 0.9), unit: 'ms' },
      { name: 'shell tool, none sandbox (median)', value: median(none), unit: 'ms' },
      { name: 'shell tool in bubblewrap, network shared (median)', value: median(bubblewrap), unit: 'ms' },
      { name: 'shell tool in bubblewrap, network shared (p90)', value: quantile(bubblewrap, 0.9), unit: 'ms' },
      { name: 'shell tool in bubblewrap, network its own through slirp4netns (median)', value: median(own), unit: 'ms' },
      { name: 'shell tool in bubblewrap, network its own through slirp4netns (p90)', value: quantile(own, 0.9), unit: 'ms' },
      { name: 'a network of its own adds per command (median)', value: median(own) - median(bubblewrap), unit: 'ms' },
      { name: 'a network of its own adds per command (p90)', value: quantile(own, 0.9) - quantile(bubblewrap, 0.9), unit: 'ms' },
      // The sandbox itself, as measured before commands had a network of their own.
      { name: 'sandbox overhead per command beyond the floor (median)', value: added, unit: 'ms', target: '<= 10 ms', pass: added <= 10 },
      { name: 'sandbox overhead per command beyond the floor (p90)', value: addedP90, unit: 'ms', target: '<= 10 ms', pass: addedP90 <= 10 },
      { name: 'in bubblewrap / floor (median)', value: median(bubblewrap) / median(floor), unit: 'x' },
      { name: 'bubblewrap detection at start-up (first call)', value: detectMs, unit: 'ms', note: `${RUNS} commands of each kind, timed in turn` },
    ];
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}

/** `/bin/sh -c true` spawned as the tool spawns (own process group, output piped) and waited for. */
function bareSpawn(env: Record<string, string | undefined>): Promise<void> {
  const child = spawn('/bin/sh', ['-c', 'true'], { env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', () => resolve());
  });
}
