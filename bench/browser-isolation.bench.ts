/**
 * What isolating the agent's chromium costs: launch to first navigation (a new pool each time, so
 * chromium starts each time), in bubblewrap with chromium's own sandbox inside, in bubblewrap
 * without it, and with no sandbox at all (how chromium ran before issue 30, but with the
 * allowlisted environment), in the same run, the modes taking turns so that a busy moment of the
 * machine falls on all of them alike. Then another conversation's first navigation with chromium
 * running, in bubblewrap. The page is the browser benchmark's dashboard on 127.0.0.1. Besides the
 * wall time, the CPU time the browser's processes (bubblewrap, chromium and its helpers) used up
 * to the first navigation, read from /proc: on a busy machine it moves far less than the wall time.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserIsolation } from '../src/browser/browser-isolation.ts';
import { chooseBrowserIsolation } from '../src/browser/browser-isolation.ts';
import { BrowserPool } from '../src/browser/browser-pool.ts';
import { defaultBrowserSettings } from '../src/browser/browser-settings.ts';
import { createBrowserTool } from '../src/browser/browser-tool.ts';
import type { BrowserSession } from '../src/browser/browser-session.ts';
import { descendantsOf } from '../test/browser/chromium-processes.ts';
import { startBenchPages } from './browser-pages.ts';
import { median, quantile, type BenchResult } from './lib.ts';

const rounds = 9;
const settings = { ...defaultBrowserSettings, allowPrivateNetwork: true };
const tool = createBrowserTool();
const navigate = async (session: BrowserSession, url: string) => {
  const output = await tool.execute(tool.parameters.parse({ action: 'navigate', url }), { signal: new AbortController().signal, cwd: process.cwd(), toolCallId: 'bench', surfaces: { browser: session } });
  const text = typeof output === 'string' ? output : JSON.stringify(output.content);
  if (!text.includes('Platform status')) throw new Error(`the page did not open: ${text}`);
};

/** Clock ticks per second of /proc/<pid>/stat's times (100 on Linux). */
const ticksPerSecond = 100;

/** Milliseconds of CPU used so far by the processes below this one, and the children they waited for. */
function browserCpuMs(): number {
  let ticks = 0;
  for (const view of descendantsOf(process.pid)) {
    try {
      const stat = readFileSync(`/proc/${view.pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime, stime, cutime, cstime
      ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    } catch {
      // It ended meanwhile.
    }
  }
  return (ticks / ticksPerSecond) * 1000;
}

export default async function run(): Promise<BenchResult[]> {
  const chosen = chooseBrowserIsolation({ env: process.env, hidden: [] });
  if (chosen.kind !== 'bubblewrap') throw new Error(`this benchmark needs bubblewrap; here: ${chosen.kind}`);
  const pages = await startBenchPages();
  const folder = await mkdtemp(join(tmpdir(), 'operator-bench-isolation-'));
  // A bubblewrap that refuses user namespaces inside, so chromium runs in it without its own sandbox.
  const refusing = join(folder, 'bwrap');
  await writeFile(refusing, `#!/bin/sh\ncase " $* " in *" --unshare-user "*) exec ${chosen.bwrap} --disable-userns "$@" ;; esac\nexec ${chosen.bwrap} "$@"\n`, { mode: 0o755 });
  const modes: { name: string; isolation: BrowserIsolation }[] = [
    { name: "bubblewrap + chromium's sandbox", isolation: chosen },
    { name: 'bubblewrap, --no-sandbox inside', isolation: { kind: 'bubblewrap', bwrap: refusing } },
    { name: 'no sandbox (--no-sandbox)', isolation: { kind: 'none', reason: 'benchmark' } },
  ];
  const launches = new Map(modes.map((mode) => [mode.name, [] as number[]]));
  const cpu = new Map(modes.map((mode) => [mode.name, [] as number[]]));
  const contexts: number[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      for (const mode of round % 2 === 0 ? modes : [...modes].reverse()) {
        const pool = new BrowserPool({ isolation: mode.isolation });
        try {
          const start = performance.now();
          await navigate(pool.session(`bench:${round}`, settings, join(folder, 'downloads')), `${pages.url}/`);
          launches.get(mode.name)!.push(performance.now() - start);
          cpu.get(mode.name)!.push(browserCpuMs());
          if (mode.isolation === chosen) {
            const again = performance.now();
            await navigate(pool.session(`bench:${round}:second`, settings, join(folder, 'downloads')), `${pages.url}/`);
            contexts.push(performance.now() - again);
          }
        } finally {
          await pool.closeAll();
        }
      }
    }
  } finally {
    await pages.close();
    await rm(folder, { recursive: true, force: true });
  }
  const none = median(launches.get(modes[2]!.name)!);
  const noneCpu = median(cpu.get(modes[2]!.name)!);
  const results: BenchResult[] = modes.flatMap((mode) => {
    const samples = launches.get(mode.name)!;
    const value = median(samples);
    const used = median(cpu.get(mode.name)!);
    const against = (difference: number) => (mode.isolation.kind === 'none' ? '' : `; ${difference >= 0 ? '+' : ''}${difference.toFixed(0)} ms against no sandbox`);
    return [
      { name: `launch to first navigation, ${mode.name} (median of ${rounds})`, value, unit: 'ms', note: `p90 ${quantile(samples, 0.9).toFixed(0)} ms${against(value - none)}` },
      { name: `CPU of the browser's processes to first navigation, ${mode.name} (median)`, value: used, unit: 'ms', note: against(used - noneCpu).replace(/^; /, '') || undefined },
    ];
  });
  results.push({ name: "another conversation's first navigation, chromium running in bubblewrap (median)", value: median(contexts), unit: 'ms' });
  return results;
}
