/**
 * The pipeline engine over the real parser, routing and handlers (the agent stood in for by a
 * scripted backend, commands run by bash): a plan, a gate, a fix loop until the check passes;
 * retries, partial success and failure routes; a spending cap's refusal, which ends the run; goal
 * gates; max_steps; parallel branches; gates with a default; a restart mid-node; checkpoints after
 * every node.
 */
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BudgetExhaustedError } from '../../../src/core/errors.ts';
import { runPipeline } from '../../../src/pipelines/engine/engine.ts';
import { QueueInterviewer, type Interviewer } from '../../../src/pipelines/engine/interviewer.ts';
import type { PipelineEvent } from '../../../src/pipelines/engine/pipeline-events.ts';
import { newRunId, RunStore, type RunRecord } from '../../../src/pipelines/engine/run-record.ts';
import { parsePipeline } from '../../../src/pipelines/graph/parse.ts';
import { validatePipeline } from '../../../src/pipelines/graph/validate.ts';
import type { CodergenRequest } from '../../../src/pipelines/handlers/codergen-handler.ts';
import { createHandlerRegistry } from '../../../src/pipelines/handlers/registry.ts';
import type { CommandRunner } from '../../../src/pipelines/handlers/tool-handler.ts';
import { createStore } from '../../../src/store/unstorage-store.ts';
import { makeTempDir } from '../../helpers/temp-dir.ts';

/** The last run's folder (each is removed after its test by `makeTempDir`). */
let folder: string | undefined;

/** Runs a command with bash in `cwd`. */
function bashIn(cwd: string): CommandRunner {
  return (command, { signal }) =>
    new Promise((resolve) => {
      execFile('bash', ['-c', command], { cwd, signal, encoding: 'utf8' }, (error, stdout, stderr) => {
        const code = error ? (typeof (error as { code?: unknown }).code === 'number' ? ((error as { code: number }).code) : null) : 0;
        resolve({ exitCode: code, output: `${stdout}${stderr}` });
      });
    });
}

/** A run of `dot` with a scripted agent; returns what happened. */
async function setUp(dot: string, options: { agent?: (request: CodergenRequest) => Promise<string> | string; answers?: string[]; maxSteps?: number; interviewer?: Interviewer } = {}) {
  folder = await makeTempDir('operator-pipeline-');
  const store = createStore({ driver: 'memory' });
  const runs = new RunStore(store);
  const pipeline = parsePipeline(dot, 'test.dot');
  const prompts: CodergenRequest[] = [];
  const events: PipelineEvent[] = [];
  const saved: RunRecord[] = [];
  const originalSave = runs.save.bind(runs);
  runs.save = async (record) => {
    saved.push(structuredClone(record));
    await originalSave(record);
  };
  const interviewer = new QueueInterviewer(options.answers ?? []);
  let first = true;
  // The first question waits for the run to be stopped (a person who has not answered yet); later ones come from the queue.
  const patient: Interviewer = options.interviewer ?? {
    ask: (question, signal) => {
      if (!first || !dot.includes('Continue?')) return interviewer.ask(question);
      first = false;
      return new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('stopped')), { once: true }));
    },
    inform: (message) => interviewer.inform(message),
  };
  const handlers = createHandlerRegistry({
    codergen: async (request) => {
      prompts.push(request);
      return { text: options.agent ? await options.agent(request) : `done: ${request.node.name}` };
    },
    runCommand: bashIn(folder),
  });
  const record = freshRecord(pipeline.name, dot, pipeline.startNode);
  await runs.create(record);
  const sleeps: number[] = [];
  const sleep = async (ms: number) => void sleeps.push(ms);
  const run = (target = record, signal?: AbortSignal) => runPipeline(pipeline, target, { handlers, runs, interviewer: patient, onEvent: (event) => events.push(event), maxSteps: options.maxSteps, signal, sleep });
  return { pipeline, runs, record, run, prompts, events, saved, interviewer, folder, sleeps };
}

function freshRecord(pipeline: string, source: string, start: string): RunRecord {
  return { id: newRunId(), pipeline, source, status: 'running', currentNode: start, nodeBegun: false, completedNodes: [], nodeOutcomes: {}, nodeRetries: {}, steps: 0, context: { data: {}, logs: [] }, startedAt: Date.now(), updatedAt: Date.now() };
}

const nodesRun = (events: PipelineEvent[]) => events.filter((event) => event.type === 'node_start').map((event) => (event as { node: string }).node);

describe('pipeline engine', () => {
  it('plans, asks at a gate, acts and checks, going back to act with the failure until the check passes', async () => {
    let acts = 0;
    const { run, record, prompts, events, saved, interviewer, folder: cwd } = await setUp(
      `digraph task {
        goal="Add a done marker"
        start [shape=Mdiamond]
        plan [prompt="Plan: {goal}"]
        gate [type="wait.human" label="Go ahead with the plan?"]
        act [prompt="Do it"]
        verify [type="tool" tool_command="test -f done.txt && echo ok || (echo 'done.txt missing'; exit 1)"]
        done [shape=Msquare]
        start -> plan -> gate
        gate -> act [label="go"]
        gate -> done [label="stop"]
        act -> verify
        verify -> done [condition="outcome = success"]
        verify -> act [condition="outcome = fail"]
      }`,
      {
        answers: ['go'],
        agent: async (request) => {
          if (request.node.name !== 'act') return 'Step 1: write done.txt';
          acts++;
          if (acts === 2) await writeFile(join(folder!, 'done.txt'), 'yes\n');
          return `attempt ${acts}`;
        },
      },
    );
    void cwd;
    const final = await run();
    expect(final.status).toBe('finished');
    expect(nodesRun(events)).toEqual(['start', 'plan', 'gate', 'act', 'verify', 'act', 'verify', 'done']);
    expect(prompts[0]!.prompt).toContain('Plan: Add a done marker');
    expect(interviewer.asked[0]).toMatchObject({ text: 'Go ahead with the plan?', options: [{ label: 'go', value: 'act' }, { label: 'stop', value: 'done' }] });
    // The second act sees why the check failed.
    expect(prompts[2]!.prompt).toContain('done.txt missing');
    expect(final.context.data['verify.output']).toBe('ok\n');
    expect(final.completedNodes).toEqual(['start', 'plan', 'gate', 'act', 'act', 'verify', 'done']);
    // A checkpoint as each node begins (holding everything before it); the last write says finished.
    const checkpoints = events.filter((event) => event.type === 'checkpoint').map((event) => (event as { node: string }).node);
    expect(checkpoints).toEqual(['start', 'plan', 'gate', 'act', 'verify', 'act', 'verify', 'done']);
    const actBegun = saved.find((entry) => entry.currentNode === 'act' && entry.nodeBegun);
    expect(actBegun).toMatchObject({ completedNodes: ['start', 'plan', 'gate'], nodeOutcomes: { gate: 'success' } });
    expect(saved.at(-1)).toMatchObject({ id: record.id, status: 'finished', nodeBegun: false });
    expect(saved.some((entry) => entry.status === 'waiting' && entry.currentNode === 'gate')).toBe(true);
    expect(events.filter((event) => event.type === 'edge').map((event) => (event as { step: unknown }).step)).toContain(2);
  });

  it('retries a node that throws up to max_retries, then fails it (or partly succeeds it with allow_partial)', async () => {
    let calls = 0;
    const flaky = async () => {
      calls++;
      if (calls < 3) throw new Error(`flaky ${calls}`);
      return 'fine';
    };
    const retried = await setUp(`digraph r { start [shape=Mdiamond]; work [max_retries=2]; done [shape=Msquare]; start -> work -> done }`, { agent: flaky });
    expect((await retried.run()).status).toBe('finished');
    expect(retried.events.filter((event) => event.type === 'retry').map((event) => (event as { reason: string }).reason)).toEqual(['flaky 1', 'flaky 2']);
    // The default policy: 1 s, then 2 s, each with jitter (0.5x to 1.5x).
    expect(retried.sleeps).toHaveLength(2);
    expect(retried.sleeps[0]).toBeGreaterThanOrEqual(500);
    expect(retried.sleeps[0]).toBeLessThanOrEqual(1_500);
    expect(retried.sleeps[1]).toBeGreaterThanOrEqual(1_000);
    expect(retried.sleeps[1]).toBeLessThanOrEqual(3_000);

    calls = 0;
    const partial = await setUp(`digraph r { start [shape=Mdiamond]; work [max_retries=1 allow_partial=true]; done [shape=Msquare]; start -> work -> done }`, { agent: flaky });
    const partialRun = await partial.run();
    expect(partialRun.status).toBe('finished');
    expect(partialRun.nodeOutcomes.work).toBe('partial_success');

    calls = 0;
    const failed = await setUp(`digraph r { start [shape=Mdiamond]; work [max_retries=1]; done [shape=Msquare]; start -> work -> done }`, { agent: flaky });
    const failedRun = await failed.run();
    expect(failedRun.status).toBe('failed');
    expect(failedRun.error).toBe('node "work" failed: gave up after 2 attempts: flaky 2');
  });

  it('routes a failure to the retry target, and a stated "Outcome: fail" counts as a failure', async () => {
    let fixes = 0;
    const { run, events } = await setUp(
      `digraph f { start [shape=Mdiamond]; fix; check [retry_target="fix"]; done [shape=Msquare]; start -> fix -> check -> done }`,
      {
        agent: (request) => {
          if (request.node.name === 'fix') return `fix ${++fixes}`;
          return fixes < 2 ? 'Still broken.\nOutcome: fail' : 'All good.';
        },
      },
    );
    expect((await run()).status).toBe('finished');
    expect(nodesRun(events)).toEqual(['start', 'fix', 'check', 'fix', 'check', 'done']);
    expect(events.find((event) => event.type === 'edge' && event.from === 'check' && event.to === 'fix')).toMatchObject({ step: 'failure_route' });
  });

  it("shows a step the context after its prompt, leaving out the keys the prompt already names", async () => {
    const { run, prompts } = await setUp(
      `digraph n { goal="Ship it" start [shape=Mdiamond]; draft [prompt="Draft"]; review [prompt="Review this: {draft.response} ({context.goal})"]; done [shape=Msquare]; start -> draft -> review -> done }`,
      { agent: (request) => (request.node.name === 'draft' ? 'A long draft.' : 'ok') },
    );
    expect((await run()).status).toBe('finished');
    const review = prompts.find((request) => request.node.name === 'review')!.prompt;
    expect(review).toContain('Review this: A long draft. (Ship it)');
    expect(review).not.toContain('draft.response:');
    expect(review).not.toMatch(/^goal:/m);
    expect(review).toContain('last_response: A long draft.');
  });

  it('fails the run with the reason when a failed node has nowhere to go', async () => {
    const { run } = await setUp(`digraph f { start [shape=Mdiamond]; check [type="tool" tool_command="echo broken >&2; exit 3"]; done [shape=Msquare]; start -> check -> done }`);
    const final = await run();
    expect(final.status).toBe('failed');
    expect(final.error).toContain('node "check" failed: `echo broken >&2; exit 3` exited with 3:\nbroken');
  });

  it('ends a run whose call a spending cap refused, failed with the refusal (no retry, no failure route); a pause stops it where it is', async () => {
    const refusal = "Not answered: this pipeline run's spending cap of $0.50 is reached ($0.4500 spent, $0.00 in calls under way).";
    const dot = `digraph c { start [shape=Mdiamond]; draft [max_retries=3 retry_target="start"]; fallback; done [shape=Msquare]; start -> draft -> done; draft -> fallback [condition="outcome = fail"]; fallback -> done }`;
    const capped = await setUp(dot, {
      agent: () => {
        throw new BudgetExhaustedError(refusal, { scope: 'pipeline run x', period: 'run', cap: 0.5, spent: 0.45 });
      },
    });
    const final = await capped.run();
    expect(final).toMatchObject({ status: 'failed', error: refusal });
    expect(nodesRun(capped.events)).toEqual(['start', 'draft']);
    expect(capped.prompts).toHaveLength(1);
    expect(capped.events.find((event) => event.type === 'node_end' && event.node === 'draft')).toMatchObject({ status: 'fail', failureReason: refusal });

    const paused = await setUp(dot, {
      agent: () => {
        throw new BudgetExhaustedError('Model calls are paused by an admin (/budget pause).', { paused: true });
      },
    });
    expect(await paused.run()).toMatchObject({ status: 'stopped', currentNode: 'draft', nodeBegun: true, error: 'model calls are paused by an admin: the run stopped here, to go on once they resume' });
  });

  it('holds the exit while a goal gate has not succeeded, going back to its retry target', async () => {
    let reviews = 0;
    const { run, events } = await setUp(
      `digraph g {
        start [shape=Mdiamond]
        implement
        review [goal_gate=true retry_target="implement"]
        done [shape=Msquare]
        start -> implement -> review
        review -> done
      }`,
      { agent: (request) => (request.node.name === 'review' ? (++reviews === 1 ? 'Not yet.\nOutcome: partial_success' : 'Approved.') : 'implemented') },
    );
    // partial_success counts as success for a gate: one review suffices.
    expect((await run()).status).toBe('finished');
    expect(nodesRun(events)).toEqual(['start', 'implement', 'review', 'done']);

    let passes = 0;
    const strict = await setUp(
      `digraph g {
        start [shape=Mdiamond]
        implement
        review [goal_gate=true retry_target="implement"]
        done [shape=Msquare]
        start -> implement -> review
        review -> done [condition="outcome = fail"]
        review -> done
      }`,
      { agent: (request) => (request.node.name === 'review' ? (++passes === 1 ? 'Rejected.\nOutcome: fail' : 'Approved.') : 'implemented') },
    );
    expect((await strict.run()).status).toBe('finished');
    expect(nodesRun(strict.events)).toEqual(['start', 'implement', 'review', 'implement', 'review', 'done']);
    expect(strict.events.find((event) => event.type === 'edge' && event.step === 'goal_gate')).toMatchObject({ from: 'done', to: 'implement' });
  });

  it('stops a run that loops past max_steps, saying so', async () => {
    const { run } = await setUp(`digraph l { start [shape=Mdiamond]; a; b; done [shape=Msquare]; start -> a -> b; b -> a; b -> done [condition="never = true"] }`, { maxSteps: 20 });
    const final = await run();
    expect(final.status).toBe('failed');
    expect(final.error).toBe('stopped after 20 steps (max_steps): the pipeline seems to loop without end');
  });

  it('runs parallel branches side by side and meets them at the fan-in', async () => {
    const started: string[] = [];
    let release!: () => void;
    const both = new Promise<void>((resolve) => (release = resolve));
    const { run, events } = await setUp(
      `digraph p {
        start [shape=Mdiamond]
        split [type="parallel"]
        left [prompt="left work"]
        right [prompt="right work"]
        join [type="parallel.fan_in"]
        done [shape=Msquare]
        start -> split
        split -> left -> join
        split -> right -> join
        join -> done
      }`,
      {
        agent: async (request) => {
          started.push(request.node.name);
          if (started.length === 2) release();
          await both;
          return `${request.node.name} result`;
        },
      },
    );
    const final = await run();
    expect(final.status).toBe('finished');
    expect(started.sort()).toEqual(['left', 'right']);
    expect(final.context.data['left.last_response']).toBe('left result');
    expect(final.context.data['right.last_response']).toBe('right result');
    expect(final.context.data['join.branches']).toEqual([
      { node: 'left', status: 'success' },
      { node: 'right', status: 'success' },
    ].sort(() => 0));
    expect(nodesRun(events)).toEqual(['start', 'split', 'join', 'done']);
  });

  it("takes a gate's default when nobody answers in time, and fails a gate without one", async () => {
    const dot = (extra: string) => `digraph d { start [shape=Mdiamond]; ask [type="wait.human" label="Deploy?" timeout=1 ${extra}]; yes; no; done [shape=Msquare]; start -> ask; ask -> yes [label="Yes"]; ask -> no [label="No"]; yes -> done; no -> done }`;
    const withDefault = await setUp(dot('default="No"'));
    expect((await withDefault.run()).status).toBe('finished');
    expect(nodesRun(withDefault.events)).toEqual(['start', 'ask', 'no', 'done']);
    const without = await setUp(dot(''));
    const final = await without.run();
    expect(final.status).toBe('failed');
    expect(final.error).toContain('nobody answered "Deploy?" in time, and the gate has no default');
  });

  it('goes on after a restart from its checkpoint, running again the node that had begun', async () => {
    let hang = true;
    const { run, runs, record, events } = await setUp(`digraph r { start [shape=Mdiamond]; slow; after; done [shape=Msquare]; start -> slow -> after -> done }`, {
      // Hangs until the first run is stopped (its process "died" long before).
      agent: (request) =>
        request.node.name === 'slow' && hang ? new Promise<string>((_, reject) => request.signal.addEventListener('abort', () => reject(new Error('gone')), { once: true })) : `${request.node.name} ok`,
    });
    const stop = new AbortController();
    const first = run(record, stop.signal);
    // The process "dies" with slow begun: what the store holds is all a new one has.
    await until(async () => (await runs.load(record.id))?.nodeBegun === true && (await runs.load(record.id))?.currentNode === 'slow');
    const stored = structuredClone((await runs.load(record.id))!);
    expect(stored).toMatchObject({ status: 'running', currentNode: 'slow', nodeBegun: true, completedNodes: ['start'] });
    hang = false;
    events.length = 0;
    const final = await run(stored);
    expect(final.status).toBe('finished');
    expect(events[0]).toMatchObject({ type: 'run_start', resumed: true });
    expect(events[1]).toMatchObject({ type: 'node_rerun', node: 'slow' });
    expect(nodesRun(events)).toEqual(['slow', 'after', 'done']);
    stop.abort();
    expect((await first).status).toBe('stopped');
  });

  it('a run stopped at a gate keeps its place, and resumes there', async () => {
    const { run, record, runs, events } = await setUp(`digraph s { start [shape=Mdiamond]; ask [type="wait.human" label="Continue?"]; done [shape=Msquare]; start -> ask -> done }`, { answers: ['yes, go on'] });
    const stop = new AbortController();
    const stopped = run(record, stop.signal);
    await until(async () => (await runs.load(record.id))?.status === 'waiting');
    stop.abort();
    expect(await stopped).toMatchObject({ status: 'stopped', currentNode: 'ask', nodeBegun: true, error: 'stopped' });
    expect(events.at(-1)).toMatchObject({ type: 'run_end', status: 'stopped' });
    // Resumed: the gate asks again, and its answer goes into the context.
    const final = await run(structuredClone((await runs.load(record.id))!));
    expect(final.status).toBe('finished');
    expect(final.context.data['ask.answer']).toBe('yes, go on');
  });

  it('forgets completed nodes when a loop_restart edge is taken', async () => {
    let rounds = 0;
    const { run } = await setUp(
      `digraph lr { start [shape=Mdiamond]; work; check; done [shape=Msquare]; start -> work -> check; check -> work [condition="outcome = fail" loop_restart=true]; check -> done }`,
      { agent: (request) => (request.node.name === 'check' && ++rounds === 1 ? 'Outcome: fail' : 'ok') },
    );
    const final = await run();
    expect(final.status).toBe('finished');
    expect(final.completedNodes).toEqual(['work', 'check', 'done']);
  });
});

async function until(condition: () => Promise<boolean>, ms = 5_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('stack.manager_loop', () => {
  const child = `digraph sprint { start [shape=Mdiamond]; work [prompt="{goal}"]; done [shape=Msquare]; start -> work -> done }`;

  /** A manager over the child pipeline `sprint`; the agent is `agent`. */
  async function manager(attributes: string, agent: (request: CodergenRequest) => string) {
    const dot = `digraph manage { start [shape=Mdiamond]; manage [type="stack.manager_loop" child="sprint" prompt="Reach the target" ${attributes}]; done [shape=Msquare]; start -> manage -> done }`;
    const pipeline = parsePipeline(dot, 'manage.dot');
    const runs = new RunStore(createStore({ driver: 'memory' }));
    const prompts: CodergenRequest[] = [];
    const handlers = createHandlerRegistry({
      codergen: async (request) => {
        prompts.push(request);
        return { text: agent(request) };
      },
      runCommand: async () => ({ exitCode: 0, output: '' }),
    });
    const record = freshRecord(pipeline.name, dot, pipeline.startNode);
    const final = await runPipeline(pipeline, record, { handlers, runs, interviewer: new QueueInterviewer(), loadChild: async (name) => (name === 'sprint' ? parsePipeline(child, 'sprint.dot') : Promise.reject(new Error(`no pipeline "${name}"`))) });
    return { final, prompts };
  }

  it('runs sprints of the child until its condition holds, each seeing how the one before ended', async () => {
    let sprint = 0;
    const { final, prompts } = await manager('until="last_response = reached" max_sprints=4', () => (++sprint === 3 ? 'reached' : `not yet ${sprint}`));
    expect(final.status).toBe('finished');
    expect(final.context.data['manage.sprints']).toBe(3);
    expect(prompts).toHaveLength(3);
    expect(prompts[0]!.prompt).toContain('Reach the target\n\nSprint 1 of 4.');
    expect(prompts[2]!.prompt).toContain('Sprint 3 of 4. The sprint before ended with:\nnot yet 2');
  });

  it('fails after max_sprints, and names a missing child', async () => {
    const { final } = await manager('until="last_response = reached" max_sprints=2', () => 'never');
    expect(final.status).toBe('failed');
    expect(final.error).toContain('sprint did not get there in 2 sprints (until last_response = reached); the last ended with: never');
    const dot = `digraph m { start [shape=Mdiamond]; manage [type="stack.manager_loop" child="nowhere" max_retries=1]; done [shape=Msquare]; start -> manage -> done }`;
    const pipeline = parsePipeline(dot, 'm.dot');
    const handlers = createHandlerRegistry({ codergen: async () => ({ text: 'x' }), runCommand: async () => ({ exitCode: 0, output: '' }) });
    const missing = await runPipeline(pipeline, freshRecord('m', dot, 'start'), { handlers, runs: new RunStore(createStore({ driver: 'memory' })), interviewer: new QueueInterviewer(), loadChild: async (name) => Promise.reject(new Error(`no pipeline "${name}"`)) });
    expect(missing.status).toBe('failed');
    expect(missing.error).toBe('node "manage" failed: gave up after 2 attempts: no pipeline "nowhere"');
  });
});

describe('declared outputs', () => {
  it("reads a node's outcome and facts from its answer, and the edges route on them", async () => {
    const dot = `digraph o { start [shape=Mdiamond]; check [prompt="Are the tests green?" outputs="tests_passed:boolean, risk:low|high"]; ship; fix; done [shape=Msquare]; start -> check; check -> ship [condition="tests_passed = true"]; check -> fix [condition="tests_passed = false"]; ship -> done; fix -> done }`;
    const pipeline = parsePipeline(dot, 'o.dot');
    const reads: string[] = [];
    const handlers = createHandlerRegistry({
      codergen: async (request) => ({ text: request.node.name === 'check' ? 'Two tests fail in auth.' : 'ok' }),
      runCommand: async () => ({ exitCode: 0, output: '' }),
      readOutputs: async ({ node, answer, schema }) => {
        reads.push(`${node.name}: ${answer}`);
        return { values: schema.parse({ outcome: 'success', reason: 'it answered', tests_passed: false, risk: 'high' }) };
      },
    });
    const final = await runPipeline(pipeline, freshRecord('o', dot, 'start'), { handlers, runs: new RunStore(createStore({ driver: 'memory' })), interviewer: new QueueInterviewer() });
    expect(final.status).toBe('finished');
    expect(reads).toEqual(['check: Two tests fail in auth.']);
    expect(final.context.data).toMatchObject({ tests_passed: false, risk: 'high', 'check.tests_passed': false });
    expect(final.completedNodes).toEqual(['start', 'check', 'fix', 'done']);
  });

  it('refuses outputs it cannot read at validation', () => {
    const findings = validatePipeline(parsePipeline(`digraph v { start [shape=Mdiamond]; a [prompt="x" outputs="ok:maybe"]; done [shape=Msquare]; start -> a -> done }`, 'v.dot'));
    expect(findings).toEqual([expect.objectContaining({ level: 'error', rule: 'outputs_syntax', node: 'a', message: 'node "a": outputs: "ok:maybe" has no known type (string, boolean, number, or choices like a|b|c)' })]);
  });
});
