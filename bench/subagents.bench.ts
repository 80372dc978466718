/**
 * Subagents: what `spawn_agent` adds before a child's first model request, and the memory a
 * finished (idle) child keeps.
 *
 * Start: from the call to `spawn` until the child's provider is asked for its first response,
 * against the floor of a fresh Agent made and invoked directly with the same tools (construction
 * to first request), alternating the two in one run. The real Anthropic SDK talks to a fake model
 * in its own process; the fs store holds the sessions, as by default.
 *
 * Memory: 200 children that each answered their task and went idle, heap measured after a full
 * garbage collection, per child.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from '../src/agent/agent.ts';
import { childAgentFactory, createSubagentTools, defaultSubagentSettings, Subagents } from '../src/agent/subagents/index.ts';
import { getModelInfo } from '../src/llm/catalog.ts';
import { createAnthropicProvider } from '../src/llm/providers/anthropic.ts';
import type { Provider } from '../src/llm/types.ts';
import { SessionManager } from '../src/session/session-manager.ts';
import { createStore } from '../src/store/unstorage-store.ts';
import { createBuiltinTools } from '../src/tools/builtin/index.ts';
import type { ToolContext } from '../src/tools/tool.ts';
import { startFakeModelProcess } from './fake-model-process.ts';
import { collectGarbage, median, quantile, type BenchResult } from './lib.ts';

const ROUNDS = 200;
const WARMUP = 20;
const IDLE_CHILDREN = 200;
const model = 'claude-sonnet-4-6';

export default async function run(): Promise<BenchResult[]> {
  const base = await mkdtemp(join(tmpdir(), 'operator-bench-subagents-'));
  const remote = await startFakeModelProcess({ text: 'Done.', usage: { input: 1200, output: 5 } });
  try {
    const inner = createAnthropicProvider({ apiKey: 'bench-key', baseURL: remote.anthropicBaseURL });
    // Notes the moment the first request of each run is asked for.
    let asked: ((at: bigint) => void) | undefined;
    const provider: Provider = {
      name: inner.name,
      async *stream(request) {
        asked?.(process.hrtime.bigint());
        asked = undefined;
        yield* inner.stream(request);
      },
    };
    const store = createStore({ driver: 'fs', base });
    const sessions = new SessionManager(store);
    const tools = [...createBuiltinTools({ cwd: base }), ...createSubagentTools()];
    const settings = { ...defaultSubagentSettings, maxOpen: IDLE_CHILDREN + 1 };
    const subagents = new Subagents({
      store,
      parentKey: 'bench:parent',
      parentSegment: 'bench%3Aparent',
      settings,
      depth: 0,
      createChild: childAgentFactory({ clientFor: () => { throw new Error('no other model'); }, store, settings, segment: encodeURIComponent }),
    });
    const parent = new Agent({ provider, model, modelInfo: getModelInfo(model), sessions, sessionKey: 'bench:parent', tools, cwd: base, subagents });
    subagents.attach(parent);
    const context: ToolContext = { signal: new AbortController().signal, cwd: base, toolCallId: 'bench' };
    const firstRequest = () => new Promise<bigint>((resolve) => (asked = resolve));

    const spawnMs: number[] = [];
    const floorMs: number[] = [];
    for (let round = 0; round < WARMUP + ROUNDS; round++) {
      // The floor: a fresh Agent with the same tools, made and asked.
      let requested = firstRequest();
      let start = process.hrtime.bigint();
      const fresh = new Agent({ provider, model, modelInfo: getModelInfo(model), sessions, sessionKey: `bench:fresh:${round}`, tools, cwd: base });
      const answered = fresh.invoke('Write the report.');
      const floor = Number((await requested) - start) / 1e6;
      await answered;
      sessions.evict(`bench:fresh:${round}`);

      requested = firstRequest();
      start = process.hrtime.bigint();
      const id = await subagents.spawn({ task: 'Write the report.' }, context);
      const spawned = Number((await requested) - start) / 1e6;
      await subagents.wait(id, 30_000, context.signal);
      await subagents.close(id);
      if (round >= WARMUP) {
        floorMs.push(floor);
        spawnMs.push(spawned);
      }
    }
    const added = spawnMs.map((ms, index) => ms - floorMs[index]!);

    // Idle children: each answered once and was left open.
    const idle = new Subagents({
      store,
      parentKey: 'bench:idle',
      parentSegment: 'bench%3Aidle',
      settings,
      depth: 0,
      createChild: childAgentFactory({ clientFor: () => { throw new Error('no other model'); }, store, settings, segment: encodeURIComponent }),
    });
    const idleParent = new Agent({ provider, model, modelInfo: getModelInfo(model), sessions, sessionKey: 'bench:idle', tools, cwd: base, subagents: idle });
    idle.attach(idleParent);
    const warm = await idle.spawn({ task: 'warm up' }, context);
    await idle.wait(warm, 30_000, context.signal);
    await collectGarbage();
    const heapBefore = process.memoryUsage().heapUsed;
    for (let index = 0; index < IDLE_CHILDREN; index++) {
      const id = await idle.spawn({ task: `Task number ${index}: write the report.` }, context);
      await idle.wait(id, 30_000, context.signal);
    }
    await collectGarbage();
    const perChild = (process.memoryUsage().heapUsed - heapBefore) / IDLE_CHILDREN / 1024;
    if ((await idle.list()).records.filter((record) => !record.closed).length !== IDLE_CHILDREN + 1) throw new Error('idle children were closed');

    return [
      { name: 'fresh Agent, made to first request (floor, median)', value: median(floorMs), unit: 'ms' },
      { name: 'spawn_agent to first request (median)', value: median(spawnMs), unit: 'ms' },
      { name: 'spawn added beyond the floor (median)', value: median(added), unit: 'ms', target: '<= 5 ms', pass: median(added) <= 5 },
      { name: 'spawn added beyond the floor (p90)', value: quantile(added, 0.9), unit: 'ms' },
      { name: 'memory per idle child', value: perChild, unit: 'KB', target: '<= 64 KB', pass: perChild <= 64, note: `${IDLE_CHILDREN} children, heap after GC` },
    ];
  } finally {
    await remote.close();
    await rm(base, { recursive: true, force: true });
  }
}
