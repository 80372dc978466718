/**
 * The engine's policies where they take effect in a run (the agent stood in for by a scripted
 * backend): the retry policy's waits (backoff, multiplier, cap, jitter, none for a gate), a stop
 * during a wait; handler hooks before and after each attempt, and one that throws; `auto_status`;
 * goal gates with context conditions (a node's and the graph's); custom lint rules.
 */
import { describe, expect, it } from 'vitest';
import { runPipeline } from '../../../src/pipelines/engine/engine.ts';
import { QueueInterviewer } from '../../../src/pipelines/engine/interviewer.ts';
import type { PipelineEvent } from '../../../src/pipelines/engine/pipeline-events.ts';
import { newRunId, RunStore, type RunRecord } from '../../../src/pipelines/engine/run-record.ts';
import { parsePipeline } from '../../../src/pipelines/graph/parse.ts';
import { validatePipeline } from '../../../src/pipelines/graph/validate.ts';
import type { CodergenRequest } from '../../../src/pipelines/handlers/codergen-handler.ts';
import type { HandlerHook } from '../../../src/pipelines/handlers/handler.ts';
import { createHandlerRegistry } from '../../../src/pipelines/handlers/registry.ts';
import { createStore } from '../../../src/store/unstorage-store.ts';

interface Options {
  agent?: (request: CodergenRequest) => string;
  hooks?: HandlerHook[];
  random?: () => number;
  answers?: string[];
  signal?: AbortSignal;
  sleep?: (ms: number, signal: AbortSignal) => Promise<unknown>;
}

/** Runs `dot` to its end; returns the record, the events and the waits asked for. */
async function run(dot: string, options: Options = {}) {
  const pipeline = parsePipeline(dot, 'test.dot');
  const events: PipelineEvent[] = [];
  const sleeps: number[] = [];
  const handlers = createHandlerRegistry({
    codergen: async (request) => ({ text: options.agent ? options.agent(request) : 'done' }),
    runCommand: async () => ({ exitCode: 0, output: '' }),
  });
  const now = Date.now();
  const record: RunRecord = { id: newRunId(), pipeline: pipeline.name, source: dot, status: 'running', currentNode: pipeline.startNode, nodeBegun: false, completedNodes: [], nodeOutcomes: {}, nodeRetries: {}, steps: 0, context: { data: {}, logs: [] }, startedAt: now, updatedAt: now };
  const final = await runPipeline(pipeline, record, {
    handlers,
    runs: new RunStore(createStore({ driver: 'memory' })),
    interviewer: new QueueInterviewer(options.answers ?? []),
    onEvent: (event) => events.push(event),
    hooks: options.hooks,
    random: options.random,
    signal: options.signal,
    sleep: options.sleep ?? (async (ms) => void sleeps.push(ms)),
  });
  return { final, events, sleeps };
}

const retries = (events: PipelineEvent[]) => events.filter((event): event is Extract<PipelineEvent, { type: 'retry' }> => event.type === 'retry');

describe('the retry policy', () => {
  const flaky = (failures: number) => {
    let calls = 0;
    return () => (++calls <= failures ? 'Not yet.\nOutcome: retry' : 'done');
  };

  it("waits as the node's policy says: first delay, multiplier, cap; jitter spreads each wait between 0.5x and 1.5x", async () => {
    const dot = (extra: string) => `digraph r { start [shape=Mdiamond]; work [max_retries=4 retry_delay="100ms" retry_backoff=3 retry_max_delay="1s" ${extra}]; done [shape=Msquare]; start -> work -> done }`;
    const exact = await run(dot('retry_jitter=false'), { agent: flaky(4) });
    expect(exact.final.status).toBe('finished');
    expect(exact.sleeps).toEqual([100, 300, 900, 1_000]);
    expect(retries(exact.events).map((event) => event.delayMs)).toEqual([100, 300, 900, 1_000]);

    const low = await run(dot(''), { agent: flaky(3), random: () => 0 });
    expect(low.sleeps).toEqual([50, 150, 450]);
    const high = await run(dot(''), { agent: flaky(3), random: () => 0.999_999 });
    expect(high.sleeps).toEqual([150, 450, 1_000]);
  });

  it("takes the graph's policy for nodes that set none, and waits nothing with retry_delay=0", async () => {
    const graph = await run(`digraph r { retry_delay="2s" retry_jitter=false; start [shape=Mdiamond]; work [max_retries=2]; done [shape=Msquare]; start -> work -> done }`, { agent: flaky(2) });
    expect(graph.sleeps).toEqual([2_000, 4_000]);
    const none = await run(`digraph r { start [shape=Mdiamond]; work [max_retries=2 retry_delay=0]; done [shape=Msquare]; start -> work -> done }`, { agent: flaky(2) });
    expect(none.sleeps).toEqual([]);
    expect(retries(none.events).map((event) => event.delayMs)).toEqual([0, 0]);
  });

  it('asks a gate again at once: a person is there', async () => {
    const { final, sleeps } = await run(`digraph g { start [shape=Mdiamond]; ask [type="wait.human" label="Which?"]; a; b; done [shape=Msquare]; start -> ask; ask -> a [label="A"]; ask -> b [label="B"]; a -> done; b -> done }`, { answers: ['C', 'A'] });
    expect(final.completedNodes).toContain('a');
    expect(sleeps).toEqual([]);
  });

  it('stops during a wait, leaving the node to run again on resume', async () => {
    const controller = new AbortController();
    const sleep = (_ms: number, signal: AbortSignal) => {
      controller.abort(new Error('stopped by hand'));
      return new Promise((_, reject) => (signal.aborted ? reject(signal.reason) : signal.addEventListener('abort', () => reject(signal.reason))));
    };
    const { final } = await run(`digraph r { start [shape=Mdiamond]; work [max_retries=3]; done [shape=Msquare]; start -> work -> done }`, { agent: flaky(5), signal: controller.signal, sleep });
    expect(final).toMatchObject({ status: 'stopped', currentNode: 'work', nodeBegun: true, error: 'stopped by hand' });
  });

  it('refuses a policy it cannot read, or one that makes no sense, at validation', () => {
    const findings = validatePipeline(parsePipeline(`digraph v { retry_backoff=0.5; start [shape=Mdiamond]; a [prompt="x" retry_delay="soon"]; done [shape=Msquare]; start -> a -> done }`, 'v.dot'));
    expect(findings.filter((finding) => finding.rule === 'retry_policy').map((finding) => finding.message)).toEqual([
      'graph retry_backoff="0.5": expected a number of 1 or more, got 0.5',
      'node "a" retry_delay="soon": expected seconds (a number, or with a unit: 500ms, 30s, 5m, 1h), got "soon"',
    ]);
    const senseless = validatePipeline(parsePipeline(`digraph v { start [shape=Mdiamond]; a [prompt="x" retry_delay="10s" retry_max_delay="1s"]; done [shape=Msquare]; start -> a -> done }`, 'v.dot'));
    expect(senseless).toEqual([expect.objectContaining({ level: 'error', rule: 'retry_policy', node: 'a', message: 'node "a" retry policy: the longest delay (1000 ms) must not be shorter than the first (10000 ms)' })]);
  });
});

describe('handler hooks', () => {
  it('are told before and after each attempt, the last with the result the node ends with', async () => {
    const told: string[] = [];
    const hook: HandlerHook = {
      beforeNode: (node, _context, step) => void told.push(`before ${node.name} #${step.attempt}`),
      afterNode: (node, _context, result, step) => void told.push(`after ${node.name} #${step.attempt} ${result.status}${step.final ? ' final' : ''}`),
    };
    const { final } = await run(`digraph h { start [shape=Mdiamond]; work [max_retries=1]; done [shape=Msquare]; start -> work -> done; work -> done [condition="outcome = fail"] }`, { agent: () => 'Outcome: retry', hooks: [hook] });
    expect(final.status).toBe('finished');
    expect(told).toEqual(['before start #1', 'after start #1 success final', 'before work #1', 'after work #1 retry', 'before work #2', 'after work #2 fail final', 'before done #1', 'after done #1 success final']);
  });

  it("are told of a parallel branch's nodes too, which get the stylesheet's settings", async () => {
    const told: string[] = [];
    const asked: Record<string, number | undefined> = {};
    const { final } = await run(
      `digraph p {
        model_stylesheet=".cold { temperature: 0.1 }"
        start [shape=Mdiamond]
        fan [type="parallel"]
        left [class="cold" prompt="Left"]
        right [prompt="Right"]
        join [type="parallel.fan_in"]
        done [shape=Msquare]
        start -> fan
        fan -> left -> join
        fan -> right -> join
        join -> done
      }`,
      {
        agent: (request) => {
          asked[request.node.name] = request.node.temperature;
          return 'done';
        },
        hooks: [{ afterNode: (node, _context, result, step) => void told.push(`${node.name} ${result.status}${step.final ? ' final' : ''}`) }],
      },
    );
    expect(final.status).toBe('finished');
    expect(told.sort()).toEqual(['done success final', 'fan success final', 'join success final', 'left success final', 'right success final', 'start success final']);
    expect(asked).toEqual({ left: 0.1, right: undefined });
  });

  it('one that throws is told as hook_failed, and the run goes on', async () => {
    const { final, events } = await run(`digraph h { start [shape=Mdiamond]; work; done [shape=Msquare]; start -> work -> done }`, {
      hooks: [
        {
          afterNode: (node) => {
            if (node.name === 'work') throw new Error('disk full');
          },
        },
      ],
    });
    expect(final.status).toBe('finished');
    expect(events.filter((event) => event.type === 'hook_failed')).toEqual([{ type: 'hook_failed', runId: final.id, node: 'work', error: 'disk full' }]);
  });
});

describe('auto_status', () => {
  it('writes a note for a node whose handler gave none (and leaves a handler\'s own note alone)', async () => {
    const notes: Record<string, string | undefined> = {};
    const hook: HandlerHook = { afterNode: (node, _context, result) => void (notes[node.name] = result.notes) };
    await run(
      `digraph a { start [shape=Mdiamond]; noted [auto_status=true]; failing [auto_status=true max_retries=1 allow_partial=true]; silent; done [shape=Msquare]; start -> noted -> failing -> silent -> done }`,
      { agent: (request) => (request.node.name === 'failing' ? 'Outcome: retry' : 'done'), hooks: [hook] },
    );
    expect(notes.noted).toBe('auto status: noted ended success after 1 attempt');
    // allow_partial's own note (why it gave up) is the handler's answer: auto_status does not replace it.
    expect(notes.failing).toBe('gave up after 2 attempts: asked to retry');
    expect(notes.silent).toBeUndefined();
  });

  it('names the failure in its note', async () => {
    const notes: Record<string, string | undefined> = {};
    await run(`digraph a { start [shape=Mdiamond]; work [auto_status=true]; done [shape=Msquare]; start -> work; work -> done [condition="outcome = fail"] }`, {
      agent: () => 'Could not.\nOutcome: fail',
      hooks: [{ afterNode: (node, _context, result) => void (notes[node.name] = result.notes) }],
    });
    expect(notes.work).toBe('auto status: work ended fail after 1 attempt: Could not.');
  });
});

describe('goal gates with context conditions', () => {
  it("holds the exit until the gate node's goal_condition holds, going back to its retry target", async () => {
    let reviews = 0;
    const { final, events } = await run(
      `digraph g {
        start [shape=Mdiamond]
        implement
        review [goal_gate=true retry_target="implement" goal_condition="approved = yes"]
        done [shape=Msquare]
        start -> implement -> review -> done
      }`,
      {
        agent: (request) => {
          if (request.node.name !== 'review') return 'implemented';
          reviews++;
          return 'reviewed';
        },
        hooks: [{ afterNode: (node, context) => void (node.name === 'review' && reviews === 2 && context.set('approved', 'yes')) }],
      },
    );
    expect(final.status).toBe('finished');
    expect(reviews).toBe(2);
    expect(events.filter((event) => event.type === 'edge' && event.step === 'goal_gate')).toHaveLength(1);
  });

  it("fails with what is unmet when the graph's goal_condition cannot be met and there is no retry target", async () => {
    const { final } = await run(`digraph g { goal_condition="tests_passed = true"; start [shape=Mdiamond]; work; done [shape=Msquare]; start -> work -> done }`);
    expect(final).toMatchObject({ status: 'failed', error: 'goal gate the goal condition tests_passed = true does not hold, and there is no retry target to go back to' });
    expect(final.context.data._goal_gate_unmet).toEqual(['the goal condition tests_passed = true does not hold']);
  });

  it('refuses a goal condition it cannot read at validation', () => {
    const findings = validatePipeline(parsePipeline(`digraph v { goal_condition="a == b"; start [shape=Mdiamond]; x [prompt="x" goal_gate=true goal_condition="ok or fine" retry_target="x"]; done [shape=Msquare]; start -> x -> done }`, 'v.dot'));
    expect(findings.filter((finding) => finding.rule === 'condition_syntax').map((finding) => finding.message)).toEqual([
      expect.stringMatching(/^graph goal_condition "a == b": Use `=` for equality checks/),
      expect.stringMatching(/^node "x" goal_condition "ok or fine": /),
    ]);
  });
});

describe('custom lint rules', () => {
  const dot = `digraph v { start [shape=Mdiamond]; deploy [prompt="Ship it"]; done [shape=Msquare]; start -> deploy -> done }`;

  it("run after the built-in ones, their findings as they give them; one that throws is a finding naming it", () => {
    const findings = validatePipeline(parsePipeline(dot, 'v.dot'), {
      rules: [
        { name: 'gate_before_deploy', check: (pipeline) => [...pipeline.nodes.values()].filter((node) => node.name === 'deploy').map((node) => ({ level: 'error' as const, rule: 'gate_before_deploy', message: 'deploy needs a human gate before it', node: node.name })) },
        {
          name: 'broken_rule',
          check: () => {
            throw new Error('oops');
          },
        },
      ],
    });
    expect(findings).toEqual([
      { level: 'error', rule: 'gate_before_deploy', message: 'deploy needs a human gate before it', node: 'deploy' },
      { level: 'error', rule: 'broken_rule', message: 'the lint rule "broken_rule" failed: oops' },
    ]);
  });
});
