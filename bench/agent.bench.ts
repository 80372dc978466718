/**
 * Agent overhead per turn and memory of idle agents.
 *
 * Overhead: each agent turn (real Anthropic SDK, fake model answering at once from its own
 * process as a real server would, fs session store,
 * the built-in tools in every request) is followed by a floor: the bare SDK call replaying the
 * very request body that turn sent, to the same fake server, so both see the same machine noise.
 * The targets apply to the added latency at each quantile (agent quantile minus floor quantile).
 * Two cross-checks: the agent's own work timed directly (the turn minus the time inside the
 * provider's stream), and the quantiles of per-pair differences, whose tail adds up the noise of
 * two independent calls and so overstates it.
 *
 * Memory: 1,000 agents that have each answered one turn, then left idle (their session trees
 * evicted from the cache, as the gateway does for idle conversations).
 */
import Anthropic from '@anthropic-ai/sdk';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from '../src/agent/agent.ts';
import { getModelInfo } from '../src/llm/catalog.ts';
import { createAnthropicProvider } from '../src/llm/providers/anthropic.ts';
import type { Provider } from '../src/llm/types.ts';
import { SessionManager } from '../src/session/session-manager.ts';
import { createStore } from '../src/store/unstorage-store.ts';
import { createBuiltinTools } from '../src/tools/builtin/index.ts';
import { startFakeModelServer } from '../test/fakes/fake-model-server.ts';
import { startFakeModelProcess } from './fake-model-process.ts';
import { collectGarbage, elapsedMs, median, quantile, type BenchResult } from './lib.ts';
import { keepAliveFetch, loadKeepAliveFetch } from '../src/core/keep-alive-fetch.ts';

const TURNS = 1_000;
const WARMUP = 60;
/** A realistic conversation length before the benchmark starts a fresh session. */
const TURNS_PER_SESSION = 25;
const IDLE_AGENTS = 1_000;
const model = 'claude-sonnet-4-6';

export default async function run(): Promise<BenchResult[]> {
  const base = await mkdtemp(join(tmpdir(), 'operator-bench-agent-'));
  const remote = await startFakeModelProcess({ text: 'Sure, done.', usage: { input: 1200, output: 5, cacheRead: 1000 } });
  const server = await startFakeModelServer();
  server.setDefault({ text: 'ok', usage: { input: 10, output: 1 } });
  try {
    const overhead = await measureOverhead(remote.anthropicBaseURL, () => remote.lastBody(), base);
    const memory = await measureIdleMemory(server.anthropicBaseURL, base);
    return [...overhead, ...memory];
  } finally {
    await remote.close();
    await server.close();
    await rm(base, { recursive: true, force: true });
  }
}

export async function measureOverhead(baseURL: string, lastBody: () => Promise<string>, base: string): Promise<BenchResult[]> {
  // The same transport the providers use: the floor is the bare call as operator makes it.
  const sdk = new Anthropic({ apiKey: 'bench-key', baseURL, maxRetries: 0, fetch: await loadKeepAliveFetch().then(() => keepAliveFetch) });
  const inner = createAnthropicProvider({ apiKey: 'bench-key', baseURL });
  let providerMs = 0;
  const timed: Provider = {
    name: inner.name,
    async *stream(request) {
      const start = process.hrtime.bigint();
      try {
        yield* inner.stream(request);
      } finally {
        providerMs += elapsedMs(start);
      }
    },
  };
  const store = createStore({ driver: 'fs', base });
  const agent = new Agent({
    provider: timed,
    model,
    modelInfo: getModelInfo(model),
    sessions: new SessionManager(store),
    sessionKey: 'bench:overhead',
    tools: createBuiltinTools({ cwd: base }),
    cwd: base,
  });

  const pairs: number[] = [];
  const own: number[] = [];
  const floors: number[] = [];
  const turns: number[] = [];
  for (let turn = 0; turn < WARMUP + TURNS; turn++) {
    if (turn % TURNS_PER_SESSION === 0) await agent.newSession();
    providerMs = 0;
    const start = process.hrtime.bigint();
    await agent.invoke(`question ${turn}`, { channel: 'bench' });
    const agentMs = elapsedMs(start);
    const ownMs = agentMs - providerMs;

    const body = JSON.parse(await lastBody()) as Anthropic.MessageCreateParamsStreaming;
    const floorStart = process.hrtime.bigint();
    const stream = await sdk.messages.create({ ...body, stream: true });
    for await (const _event of stream) {
      // consume the whole stream, as the provider does
    }
    const floorMs = elapsedMs(floorStart);
    if (turn < WARMUP) continue;
    pairs.push(agentMs - floorMs);
    turns.push(agentMs);
    own.push(ownMs);
    floors.push(floorMs);
  }
  await store.close();

  const addedMedian = median(turns) - median(floors);
  const addedP99 = quantile(turns, 0.99) - quantile(floors, 0.99);
  return [
    { name: 'bare SDK round trip to the fake (floor, median)', value: median(floors), unit: 'ms' },
    { name: 'bare SDK round trip to the fake (floor, p99)', value: quantile(floors, 0.99), unit: 'ms' },
    { name: 'agent turn (median)', value: median(turns), unit: 'ms' },
    { name: 'agent turn (p99)', value: quantile(turns, 0.99), unit: 'ms' },
    { name: 'agent overhead per turn beyond the floor (median)', value: addedMedian, unit: 'ms', target: '<= 1 ms', pass: addedMedian <= 1 },
    { name: 'agent overhead per turn beyond the floor (p99)', value: addedP99, unit: 'ms', target: '<= 5 ms', pass: addedP99 <= 5 },
    { name: "agent's own time per turn, outside the provider stream (median)", value: median(own), unit: 'ms' },
    { name: "agent's own time per turn, outside the provider stream (p99)", value: quantile(own, 0.99), unit: 'ms' },
    { name: 'per-pair difference agent - floor (median)', value: median(pairs), unit: 'ms' },
    { name: 'per-pair difference agent - floor (p99)', value: quantile(pairs, 0.99), unit: 'ms', note: 'sums the tails of two calls' },
  ];
}

async function measureIdleMemory(baseURL: string, base: string): Promise<BenchResult[]> {
  const provider = createAnthropicProvider({ apiKey: 'bench-key', baseURL });
  const store = createStore({ driver: 'fs', base: join(base, 'idle') });
  const sessions = new SessionManager(store);
  const tools = createBuiltinTools({ cwd: process.cwd() });
  const info = getModelInfo(model);
  // One agent first, so shared code and caches are warm before the baseline.
  const first = new Agent({ provider, model, modelInfo: info, sessions, sessionKey: 'bench:warm', tools });
  await first.invoke('hello');
  sessions.evict('bench:warm');

  collectGarbage();
  const heapBefore = process.memoryUsage().heapUsed;
  const agents: Agent[] = [];
  for (let i = 0; i < IDLE_AGENTS; i++) {
    const key = `bench:idle:${i}`;
    const agent = new Agent({ provider, model, modelInfo: info, sessions, sessionKey: key, tools });
    await agent.invoke('hello');
    sessions.evict(key);
    agents.push(agent);
  }
  collectGarbage();
  const perAgent = (process.memoryUsage().heapUsed - heapBefore) / IDLE_AGENTS / 1024;
  const note = (globalThis as { gc?: unknown }).gc ? `${agents.length} agents alive` : 'run with --expose-gc for stable figures';
  await store.close();
  return [
    { name: 'heap per idle agent (1,000 agents, one turn each, sessions on disk)', value: perAgent, unit: 'KB', target: '<= 64 KB', pass: perAgent <= 64, note },
  ];
}
