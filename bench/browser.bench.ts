/**
 * The browser: launch to first navigation, live state capture per model call (with and without a
 * screenshot), bytes added to each call, the prompt-cache share of a 20-turn browsing
 * conversation (real Agent, real Anthropic SDK, the fake model server's simulated cache), and
 * memory per open context. Pages are local (a typical dashboard); the floor is a bare HTTP round
 * trip to the same server in the same run.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from '../src/agent/agent.ts';
import { BrowserPool } from '../src/browser/browser-pool.ts';
import type { BrowserSession } from '../src/browser/browser-session.ts';
import { defaultBrowserSettings, type BrowserSettings } from '../src/browser/browser-settings.ts';
import { createBrowserTool } from '../src/browser/browser-tool.ts';
import { getModelInfo } from '../src/llm/catalog.ts';
import { createAnthropicProvider } from '../src/llm/providers/anthropic.ts';
import { SessionManager } from '../src/session/session-manager.ts';
import { createStore } from '../src/store/unstorage-store.ts';
import { createBuiltinTools } from '../src/tools/builtin/index.ts';
import { startFakeModelServer } from '../test/fakes/fake-model-server.ts';
import type { ReplySpec } from '../test/fakes/fake-model-server.ts';
import { startBenchPages } from './browser-pages.ts';
import { median, sample, type BenchResult } from './lib.ts';
import { benchChannel, generator, loadFixture, paragraph, sentence, writeProfileFixture } from './prompt.bench.ts';

const settings = (overrides: Partial<BrowserSettings> = {}): BrowserSettings => ({ ...defaultBrowserSettings, allowPrivateNetwork: true, ...overrides });
const tool = createBrowserTool();
const call = (session: BrowserSession, args: Record<string, unknown>) =>
  tool.execute(tool.parameters.parse(args), { signal: new AbortController().signal, cwd: process.cwd(), toolCallId: 'bench', surfaces: { browser: session } });

export default async function run(): Promise<BenchResult[]> {
  const pages = await startBenchPages();
  const folder = await mkdtemp(join(tmpdir(), 'operator-bench-browser-'));
  try {
    const floor = median(await sample(30, () => fetch(`${pages.url}/floor`).then((response) => response.text()), 5));
    const launch = await launchToFirstNavigation(pages.url, folder);
    const capture = await captureCosts(pages.url, folder);
    const cache = await browsingCacheShare(pages.url, folder);
    const memory = await memoryPerContext(pages.url, folder);
    return [
      { name: 'HTTP round trip to the page server (floor)', value: floor, unit: 'ms' },
      { name: 'browser launch to first navigation (median of 5)', value: launch.launch, unit: 'ms', note: `${(launch.launch / floor).toFixed(0)}x the floor` },
      { name: "another conversation's first navigation, chromium running (median of 5)", value: launch.context, unit: 'ms', note: `${(launch.context / floor).toFixed(0)}x the floor; a context of its own, no second launch` },
      { name: 'state capture per model call, accessibility (median)', value: capture.text, unit: 'ms', target: '<= 40 ms', pass: capture.text <= 40, note: `${(capture.text / floor).toFixed(1)}x the floor` },
      { name: 'state capture per model call, accessibility + screenshot (median)', value: capture.withImage, unit: 'ms', target: '<= 150 ms', pass: capture.withImage <= 150, note: `${(capture.withImage / floor).toFixed(1)}x the floor` },
      { name: 'text added per model call (typical dashboard)', value: capture.textBytes / 1024, unit: 'KB', target: '<= 30 KB', pass: capture.textBytes <= 30 * 1024 },
      { name: 'screenshot added per model call (1280x800 JPEG)', value: capture.imageBytes / 1024, unit: 'KB', note: 'one image per call' },
      { name: 'text added per model call, a page 30x larger (capped)', value: capture.bigTextBytes / 1024, unit: 'KB', target: '<= 30 KB', pass: capture.bigTextBytes <= 30 * 1024 },
      {
        name: 'input tokens served from the cache, 20-turn browsing conversation (readFraction)',
        value: cache.readFraction,
        unit: '',
        target: '>= 0.85',
        pass: cache.readFraction >= 0.85,
        note: `${cache.requests} requests, ${cache.input} input tokens, ${cache.read} read; the state rides after the last breakpoint`,
      },
      { name: 'memory per open browser context (PSS, dashboard loaded)', value: memory.perContext, unit: 'MB', note: `browser with one context ${memory.one.toFixed(0)} MB; default cap of 8 contexts ≈ ${(memory.one + 7 * memory.perContext).toFixed(0)} MB` },
    ];
  } finally {
    await pages.close();
    await rm(folder, { recursive: true, force: true });
  }
}

/** Median ms from nothing running to the first page shown, and for another conversation once chromium runs. */
async function launchToFirstNavigation(url: string, folder: string): Promise<{ launch: number; context: number }> {
  const launches: number[] = [];
  const contexts: number[] = [];
  for (let round = 0; round < 5; round++) {
    const pool = new BrowserPool();
    const first = pool.session(`bench:${round}`, settings(), join(folder, 'launch'));
    let start = performance.now();
    await call(first, { action: 'navigate', url: `${url}/` });
    launches.push(performance.now() - start);
    const second = pool.session(`bench:${round}:second`, settings(), join(folder, 'launch'));
    start = performance.now();
    await call(second, { action: 'navigate', url: `${url}/` });
    contexts.push(performance.now() - start);
    await pool.closeAll();
  }
  return { launch: median(launches), context: median(contexts) };
}

async function captureCosts(url: string, folder: string) {
  const pool = new BrowserPool();
  try {
    const plain = pool.session('bench:text', settings(), join(folder, 'text'));
    const image = pool.session('bench:image', settings({ useScreenshot: true }), join(folder, 'image'));
    await call(plain, { action: 'navigate', url: `${url}/` });
    await call(image, { action: 'navigate', url: `${url}/` });
    const signal = new AbortController().signal;
    const text = median(await sample(30, () => plain.liveState(signal), 5));
    const withImage = median(await sample(30, () => image.liveState(signal), 5));
    const state = (await image.liveState(signal))!;
    const big = pool.session('bench:big', settings(), join(folder, 'big'));
    await call(big, { action: 'navigate', url: `${url}/` });
    // The same dashboard 30 times over, so the snapshot is far past the cap.
    await big.use(async (tabs) =>
      tabs.active.evaluate("(() => { const main = document.querySelector('main'); const copy = main.innerHTML; for (let i = 0; i < 30; i++) main.insertAdjacentHTML('beforeend', copy); })()"),
    );
    const bigState = (await big.liveState(signal))!;
    return {
      text,
      withImage,
      textBytes: Buffer.byteLength(state.text),
      imageBytes: state.images.reduce((sum, part) => sum + Buffer.from(part.data ?? '', 'base64').length, 0),
      bigTextBytes: Buffer.byteLength(bigState.text),
    };
  } finally {
    await pool.closeAll();
  }
}

async function browsingCacheShare(url: string, folder: string) {
  const server = await startFakeModelServer({ promptCache: true });
  const pool = new BrowserPool();
  try {
    const fixture = writeProfileFixture(join(folder, 'profile'));
    const { resources } = await loadFixture(fixture);
    const session = pool.session(benchChannel, settings(), join(folder, 'cache'));
    const model = 'claude-sonnet-4-6';
    const agent = new Agent({
      provider: createAnthropicProvider({ apiKey: 'bench-key', baseURL: server.anthropicBaseURL }),
      model,
      modelInfo: getModelInfo(model),
      sessions: new SessionManager(createStore({ driver: 'memory' })),
      sessionKey: benchChannel,
      tools: [...createBuiltinTools({ cwd: fixture.cwd }), tool],
      resources,
      cwd: fixture.cwd,
      surfaces: [session],
    });
    const random = generator(7);
    const actions: Record<string, unknown>[] = [
      { action: 'navigate', url: `${url}/overview` },
      { action: 'scroll', direction: 'down' },
      { action: 'navigate', url: `${url}/incidents` },
      { action: 'back' },
      { action: 'tab_list' },
    ];
    for (let turn = 0; turn < 20; turn++) {
      const replies: ReplySpec[] = [{ toolCalls: [{ name: 'browser', arguments: actions[turn % actions.length]! }], usage: { output: 30 } }, { text: paragraph(random), usage: { output: 80 }, chunkSize: 256 }];
      server.enqueue(...replies);
      await agent.invoke(sentence(random), { channel: benchChannel });
    }
    agent.dispose();
    const stats = server.cacheStats();
    return { readFraction: stats.readFraction, requests: stats.requests, input: stats.inputTokens, read: stats.cacheReadTokens };
  } finally {
    await pool.closeAll();
    await server.close();
  }
}

async function memoryPerContext(url: string, folder: string) {
  const pool = new BrowserPool();
  try {
    const sessions = Array.from({ length: 6 }, (_, index) => pool.session(`bench:memory:${index}`, settings(), join(folder, `memory-${index}`)));
    await call(sessions[0]!, { action: 'navigate', url: `${url}/` });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const one = chromiumMegabytes();
    for (const session of sessions.slice(1)) await call(session, { action: 'navigate', url: `${url}/` });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const six = chromiumMegabytes();
    return { one, perContext: (six - one) / 5 };
  } finally {
    await pool.closeAll();
  }
}

/** Proportional memory (PSS) of every chromium process below this one, in MB. */
function chromiumMegabytes(): number {
  const parents = new Map<number, number>();
  const names = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      names.set(Number(entry), stat.slice(stat.indexOf('(') + 1, close));
      parents.set(Number(entry), Number(stat.slice(close + 2).split(' ')[1]));
    } catch {
      // Gone meanwhile.
    }
  }
  const below = (pid: number): boolean => {
    for (let parent = parents.get(pid); parent !== undefined && parent > 1; parent = parents.get(parent)) if (parent === process.pid) return true;
    return false;
  };
  let kilobytes = 0;
  for (const [pid] of names) {
    if (!below(pid)) continue;
    try {
      const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
      kilobytes += Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
    } catch {
      // Gone meanwhile, or not readable.
    }
  }
  return kilobytes / 1024;
}
