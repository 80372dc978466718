/**
 * What isolating the agent's chromium costs: launch to first navigation (a new pool each time, so
 * chromium starts each time), in bubblewrap with chromium's own sandbox inside, in bubblewrap
 * without it, and with no sandbox at all (how chromium ran before issue 30, but with the
 * allowlisted environment), in the same run, the modes taking turns so that a busy moment of the
 * machine falls on all of them alike. Then another conversation's first navigation with chromium
 * running, in bubblewrap. The page is the browser benchmark's dashboard on 127.0.0.1.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserIsolation } from '../src/browser/browser-isolation.ts';
import { chooseBrowserIsolation } from '../src/browser/browser-isolation.ts';
import { BrowserPool } from '../src/browser/browser-pool.ts';
import { defaultBrowserSettings } from '../src/browser/browser-settings.ts';
import { createBrowserTool } from '../src/browser/browser-tool.ts';
import type { BrowserSession } from '../src/browser/browser-session.ts';
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
  const contexts: number[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      for (const mode of round % 2 === 0 ? modes : [...modes].reverse()) {
        const pool = new BrowserPool({ isolation: mode.isolation });
        try {
          const start = performance.now();
          await navigate(pool.session(`bench:${round}`, settings, join(folder, 'downloads')), `${pages.url}/`);
          launches.get(mode.name)!.push(performance.now() - start);
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
  const results: BenchResult[] = modes.map((mode) => {
    const samples = launches.get(mode.name)!;
    const value = median(samples);
    return {
      name: `launch to first navigation, ${mode.name} (median of ${rounds})`,
      value,
      unit: 'ms',
      note: `p90 ${quantile(samples, 0.9).toFixed(0)} ms${mode.isolation.kind === 'none' ? '' : `; ${value - none >= 0 ? '+' : ''}${(value - none).toFixed(0)} ms against no sandbox`}`,
    };
  });
  results.push({ name: "another conversation's first navigation, chromium running in bubblewrap (median)", value: median(contexts), unit: 'ms' });
  return results;
}
