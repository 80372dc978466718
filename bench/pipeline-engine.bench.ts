/**
 * The pipeline engine's own cost: per node beyond the handler, and one checkpoint write.
 *
 * Per node: a 200-node chain whose handler returns at once (success, nothing added to the
 * context), walked by the engine with its checkpoints on the filesystem store (as by default),
 * against the floor of the same handler called 200 times directly. The figure is (engine run -
 * floor) / nodes, median of 15 runs. It includes the node's checkpoint write (the node begun,
 * with everything before it), the stylesheet, the routing and the events. Apart, the same chain with the real
 * `codergen` handler, whose answers pile up in the context (each node's answer kept): the
 * checkpoints then grow with the run.
 *
 * Checkpoint: one `RunStore.save` of a run record whose context holds about 10 KB (a plan, a test
 * output, a few answers), on the filesystem store; median of 300.
 *
 * Run folder: the same chain with the real `codergen` handler (its prompt and a 2 KB answer with
 * usage per node), walked with and without the run folder (manifest, prompt.md, response.md,
 * status.json twice, on the filesystem), the two interleaved. Per node: the time from one node's
 * checkpoint to the next's (so the checkpoint is in both); the figure is the median with the
 * folder minus the median without, over every node of 15 runs each. The folder's writes are
 * queued and go on while the next node runs, so the same is also measured over whole runs with
 * every write flushed (`finish` awaited): what the writes cost in all, per node.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runPipeline } from '../src/pipelines/engine/engine.ts';
import { QueueInterviewer } from '../src/pipelines/engine/interviewer.ts';
import { PipelineContext } from '../src/pipelines/engine/pipeline-context.ts';
import { newRunId, RunStore, type RunRecord } from '../src/pipelines/engine/run-record.ts';
import { parsePipeline } from '../src/pipelines/graph/parse.ts';
import type { HandlerRun, NodeHandler } from '../src/pipelines/handlers/handler.ts';
import { createHandlerRegistry } from '../src/pipelines/handlers/registry.ts';
import { createStore } from '../src/store/unstorage-store.ts';
import { elapsedMs, median, quantile, type BenchResult } from './lib.ts';
import type { PipelineEvent } from '../src/pipelines/engine/pipeline-events.ts';
import { RunFolder } from '../src/pipelines/run-folder/run-folder.ts';

const NODES = 200;
const RUNS = 15;

export default async function run(): Promise<BenchResult[]> {
  const folder = await mkdtemp(join(tmpdir(), 'operator-bench-pipeline-'));
  const store = createStore({ driver: 'fs', base: folder });
  try {
    const runs = new RunStore(store);
    const chain = Array.from({ length: NODES }, (_, index) => `n${index}`);
    const dot = `digraph chain {\n  model_stylesheet="* { reasoning_effort: low }"\n  start [shape=Mdiamond]\n${chain.map((name) => `  ${name} [prompt="step ${name}: {goal}"]`).join('\n')}\n  done [shape=Msquare]\n  start -> ${chain.join(' -> ')} -> done [condition="outcome = success"]\n}`;
    const pipeline = parsePipeline(dot, 'chain.dot');
    const answer = { text: 'done' };
    const real = createHandlerRegistry({ codergen: async () => answer, runCommand: async () => ({ exitCode: 0, output: '' }) });
    const instant: NodeHandler = { execute: async () => ({ status: 'success' }) };
    const handlers = new Map([...real, ['codergen', instant]]);
    const codergen = instant;

    const engineMs: number[] = [];
    const floorMs: number[] = [];
    for (let round = 0; round < RUNS + 2; round++) {
      const floor = await handlerAlone(codergen, pipeline, chain.map((name) => pipeline.nodes.get(name)!));
      const record = fresh(pipeline.startNode, dot);
      const start = process.hrtime.bigint();
      const final = await runPipeline(pipeline, record, { handlers, runs, interviewer: new QueueInterviewer() });
      const took = elapsedMs(start);
      if (final.status !== 'finished') throw new Error(`the chain did not finish: ${final.error}`);
      if (round >= 2) {
        engineMs.push(took);
        floorMs.push(floor);
      }
    }
    const perNode = engineMs.map((ms, index) => (ms - floorMs[index]!) / (NODES + 2));
    const growing: number[] = [];
    for (let round = 0; round < 5; round++) {
      const start = process.hrtime.bigint();
      await runPipeline(pipeline, fresh(pipeline.startNode, dot), { handlers: real, runs, interviewer: new QueueInterviewer() });
      growing.push(elapsedMs(start) / (NODES + 2));
    }

    const record = fresh('n0', dot);
    record.context.data = {
      goal: 'Add a release notes page',
      'plan.response': 'Step '.repeat(600),
      'check.output': 'PASS '.repeat(800),
      'approve.answer': 'go',
      last_response: 'done '.repeat(200),
    };
    const saves: number[] = [];
    for (let index = 0; index < 320; index++) {
      record.steps = index;
      const start = process.hrtime.bigint();
      await runs.save(record);
      if (index >= 20) saves.push(elapsedMs(start));
    }
    const checkpointBytes = JSON.stringify(record).length;

    const folderCost = await runFolderCost(pipeline, dot, runs, folder);

    return [
      ...folderCost,
      { name: `handler alone, ${NODES} nodes (floor, median)`, value: median(floorMs), unit: 'ms' },
      { name: `engine walk, ${NODES + 2} nodes with checkpoints (median)`, value: median(engineMs), unit: 'ms' },
      { name: 'engine overhead per node beyond the handler (median)', value: median(perNode), unit: 'ms', target: '<= 1 ms', pass: median(perNode) <= 1, note: 'its checkpoint write included' },
      { name: 'per node with the real codergen handler, its answers piling up in the context (median)', value: median(growing), unit: 'ms', note: `the checkpoint grows to ${NODES} answers` },
      { name: 'checkpoint write, fs store (median)', value: median(saves), unit: 'ms', target: '<= 2 ms', pass: median(saves) <= 2, note: `${Math.round(checkpointBytes / 1024)} KB record` },
    ];
  } finally {
    await store.close();
    await rm(folder, { recursive: true, force: true });
  }
}

/** The run folder's writes per node beyond the checkpoint (see the file's comment). */
async function runFolderCost(pipeline: ReturnType<typeof parsePipeline>, dot: string, runs: RunStore, folder: string): Promise<BenchResult[]> {
  const answer = { text: `${'The step is done; the tests pass. '.repeat(60)}`, usage: { input: 12_000, output: 400, cacheRead: 8_000, cacheWrite: 0, cost: 0.01 } };
  const handlers = createHandlerRegistry({ codergen: async () => answer, runCommand: async () => ({ exitCode: 0, output: '' }) });
  const root = join(folder, 'runs');
  const without: number[] = [];
  const withFolder: number[] = [];
  const wholeWithout: number[] = [];
  const wholeWith: number[] = [];
  for (let round = 0; round < RUNS + 2; round++) {
    for (const kept of [false, true]) {
      const record = fresh(pipeline.startNode, dot);
      const runFolder = kept ? await RunFolder.open({ root, record, goal: 'x', model: 'claude-sonnet-4-6', provider: 'anthropic', keep: 1_000, env: {} }) : undefined;
      const marks: bigint[] = [];
      const onEvent = (event: PipelineEvent) => {
        if (event.type === 'checkpoint') marks.push(process.hrtime.bigint());
        runFolder?.onEvent(event);
      };
      const start = process.hrtime.bigint();
      const final = await runPipeline(pipeline, record, { handlers, runs, interviewer: new QueueInterviewer(), onEvent, hooks: runFolder ? [runFolder.hook] : [] });
      await runFolder?.finish(final);
      const took = elapsedMs(start);
      if (final.status !== 'finished') throw new Error(`the chain did not finish: ${final.error}`);
      if (round < 2) continue;
      (kept ? wholeWith : wholeWithout).push(took / (NODES + 2));
      const gaps = marks.slice(1).map((mark, index) => Number(mark - marks[index]!) / 1e6);
      (kept ? withFolder : without).push(...gaps);
    }
  }
  // The floor of the whole-run figure: the same files made with plain writes, node after node.
  const floors: number[] = [];
  const prompt = 'p'.repeat(3_000);
  for (let round = 0; round < 5; round++) {
    const base = join(folder, `floor-${round}`);
    const start = process.hrtime.bigint();
    for (let index = 0; index < NODES + 2; index++) {
      const node = join(base, `n${index}`);
      await mkdir(node, { recursive: true, mode: 0o700 });
      await writeFile(join(node, 'status.json'), '{"outcome":"running"}\n', { mode: 0o600 });
      await writeFile(join(node, 'prompt.md'), prompt, { mode: 0o600 });
      await writeFile(join(node, 'response.md'), answer.text, { mode: 0o600 });
      await writeFile(join(node, 'status.json'), '{"outcome":"success"}\n', { mode: 0o600 });
    }
    floors.push(elapsedMs(start) / (NODES + 2));
  }
  const cost = median(withFolder) - median(without);
  return [
    { name: 'per node, checkpoint to checkpoint, real codergen handler, no run folder (median)', value: median(without), unit: 'ms' },
    { name: 'per node, the same with the run folder (median)', value: median(withFolder), unit: 'ms', note: `p90 ${quantile(withFolder, 0.9).toFixed(2)} ms` },
    { name: 'run folder writes per node beyond the checkpoint (p50)', value: cost, unit: 'ms', target: '<= 1 ms', pass: cost <= 1 },
    { name: "floor: a node's folder and four file writes, plain, one after another (median)", value: median(floors), unit: 'ms' },
    {
      name: 'over whole runs, every write flushed: (run with folder - run without) / nodes (median of runs)',
      value: median(wholeWith) - median(wholeWithout),
      unit: 'ms',
      note: `${((median(wholeWith) - median(wholeWithout)) / median(floors)).toFixed(2)}x the floor; off the run's path (the next node works meanwhile)`,
    },
  ];
}

/** The handler called on each node directly: what the engine walk costs at least. */
async function handlerAlone(handler: NodeHandler, pipeline: ReturnType<typeof parsePipeline>, nodes: ReturnType<typeof parsePipeline>['nodes'] extends ReadonlyMap<string, infer N> ? N[] : never): Promise<number> {
  const context = new PipelineContext({ goal: 'x' });
  const run = { pipeline, runId: 'floor', interviewer: new QueueInterviewer(), signal: new AbortController().signal, attempt: 1, fidelity: 'compact', waiting: async () => undefined, emit: () => undefined, runNode: async () => ({ status: 'success' }) } as HandlerRun;
  const start = process.hrtime.bigint();
  for (const node of nodes) context.update((await handler.execute(node, context, run)).contextUpdates ?? {});
  return elapsedMs(start);
}

function fresh(start: string, source: string): RunRecord {
  return { id: newRunId(), pipeline: 'chain', source, status: 'running', currentNode: start, nodeBegun: false, completedNodes: [], nodeOutcomes: {}, nodeRetries: {}, steps: 0, context: { data: { goal: 'x' }, logs: [] }, startedAt: Date.now(), updatedAt: Date.now() };
}
