/**
 * The pipeline engine: walks a run from its current node to an exit, one node at a time. Per node:
 * the stylesheet's defaults, the fidelity, the goal gates before an exit, a checkpoint in the
 * store (this node begun, with everything before it), the handler (with its retries, each after
 * the wait its retry policy says, and its timeout), the handler hooks before and after each
 * attempt (the run folder), the context updated, and the next edge chosen (or the failure
 * route). Goal gates (`goal-gates.ts`) hold an exit until their nodes succeeded and their
 * conditions hold. A restart goes on from the
 * checkpoint: a node that had begun runs again under its retry policy. Every step is an event. It never leaves a run stuck silently: a run ends
 * finished, failed or stopped with a reason, or is resumable from its checkpoint. A model call
 * refused at a spending cap ends the run there, failed with the refusal (no retry or failure route
 * could make a call); one refused because an admin paused all calls stops it, to be resumed.
 */
import { BudgetExhaustedError, errorMessage } from '../../core/errors.ts';
import { applyStylesheet, parseStylesheet } from '../graph/stylesheet.ts';
import type { HandlerHook, HandlerRegistry, HandlerRun } from '../handlers/handler.ts';
import { setTimeout as wait } from 'node:timers/promises';
import { backoffDelay } from '../../core/backoff.ts';
import { retryPolicyOf } from './retry-policy.ts';
import { unmetGoals } from './goal-gates.ts';
import { resolveFidelity } from '../routing/fidelity.ts';
import { failureRoute, selectEdge } from '../routing/select-edge.ts';
import { isSuccess, type NodeResult, type Pipeline, type PipelineEdge, type PipelineNode } from '../types.ts';
import type { Interviewer } from './interviewer.ts';
import { PipelineContext } from './pipeline-context.ts';
import type { PipelineEvent } from './pipeline-events.ts';
import { RunStore, type RunRecord } from './run-record.ts';
import { createStore } from '../../store/unstorage-store.ts';

/** What a run needs besides its pipeline and record. */
export interface EngineOptions {
  handlers: HandlerRegistry;
  runs: RunStore;
  interviewer: Interviewer;
  /** Told every step; must not throw. */
  onEvent?: (event: PipelineEvent) => void;
  /** Nodes run at most, loops included. Default 1,000. */
  maxSteps?: number;
  /** Stops the run (it is left `stopped`, resumable). */
  signal?: AbortSignal;
  /** The pipeline named `name` (for `stack.manager_loop`'s child); unset: no child pipelines. */
  loadChild?: (name: string) => Promise<Pipeline>;
  /**
   * Asked when the signal aborts: true when the process is going away (the gateway stops), and the
   * run is then left as it stands (running or waiting, at its node) to go on after the next start.
   */
  interrupted?: () => boolean;
  /** Told before and after each attempt of each node (the run folder). */
  hooks?: readonly HandlerHook[];
  /** Waits between a node's attempts; rejects when the signal aborts. Injectable so tests need not sleep. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<unknown>;
  /** The jitter's random numbers in [0, 1); default `Math.random`. */
  random?: () => number;
}

/** Where the walk goes after a node. */
type Next = { node: string; edge?: PipelineEdge; step: number | 'next_node' | 'failure_route' | 'goal_gate' } | { end: 'finished' } | { end: 'failed'; error: string };

/**
 * Runs `record` of `pipeline` until it ends or is stopped; resolves to the record as last stored.
 * A new record starts at the pipeline's start node; one read back after a restart goes on where
 * its checkpoint says.
 */
export async function runPipeline(pipeline: Pipeline, record: RunRecord, options: EngineOptions): Promise<RunRecord> {
  const signal = options.signal ?? new AbortController().signal;
  const maxSteps = options.maxSteps ?? 1_000;
  const sleep = options.sleep ?? ((ms: number, stop: AbortSignal) => wait(ms, undefined, { signal: stop }));
  const random = options.random ?? Math.random;
  const emit = (event: PipelineEvent) => {
    try {
      options.onEvent?.(event);
    } catch {
      // A listener's failure is its own.
    }
  };
  const context = PipelineContext.fromJSON(record.context);
  const resumed = record.steps > 0 || record.nodeBegun;
  if (!resumed) {
    context.set('graph.goal', pipeline.goal);
    if (!context.has('goal')) context.set('goal', pipeline.goal);
  }
  const stylesheet = pipeline.modelStylesheet ? parseStylesheet(pipeline.modelStylesheet) : undefined;
  const save = async () => {
    record.context = context.toJSON();
    await options.runs.save(record);
  };
  const end = async (status: 'finished' | 'failed' | 'stopped', error?: string) => {
    Object.assign(record, { status, error, endedAt: Date.now(), nodeBegun: status === 'stopped' ? record.nodeBegun : false });
    await save();
    emit({ type: 'run_end', runId: record.id, status, error });
    return record;
  };

  /** Stopped, or (the process going away) left to go on at the next start. */
  const halt = async (): Promise<RunRecord> => {
    if (!options.interrupted?.()) return end('stopped', reasonOf(signal));
    await save();
    emit({ type: 'run_end', runId: record.id, status: record.status, error: 'interrupted: it goes on after the next start' });
    return record;
  };

  /** A spending cap's refusal, once a node's call met one: the run ends with it. */
  let refused: BudgetExhaustedError | undefined;

  record.status = 'running';
  emit({ type: 'run_start', runId: record.id, pipeline: pipeline.name, resumed });
  if (record.nodeBegun) emit({ type: 'node_rerun', runId: record.id, node: record.currentNode });
  let arrivedBy: PipelineEdge | undefined;
  for (;;) {
    if (signal.aborted) return halt();
    if (record.steps >= maxSteps) return end('failed', `stopped after ${maxSteps} steps (max_steps): the pipeline seems to loop without end`);
    const declared = pipeline.nodes.get(record.currentNode);
    if (!declared) return end('failed', `node "${record.currentNode}" is not in the pipeline`);
    const node = stylesheet ? applyStylesheet(stylesheet, declared) : declared;

    // Goal gates hold the exit until their nodes succeeded and their conditions hold.
    if (node.isTerminal) {
      const unmet = unmetGoals(pipeline, record.nodeOutcomes, context);
      if (unmet.length > 0) {
        const gate = unmet[0]!.node;
        const target = gate?.retryTarget ?? pipeline.retryTarget ?? gate?.fallbackRetryTarget ?? pipeline.fallbackRetryTarget;
        context.set('_goal_gate_unmet', unmet.map((goal) => goal.description));
        if (!target || !pipeline.nodes.has(target)) return end('failed', `goal gate ${unmet[0]!.description}, and there is no retry target to go back to`);
        emit({ type: 'edge', runId: record.id, from: node.name, to: target, label: '', step: 'goal_gate' });
        moveTo(target);
        continue;
      }
    }

    const fidelity = resolveFidelity(arrivedBy, node, pipeline);
    context.set('_fidelity_mode', fidelity);
    // The checkpoint: the previous node's outcome and the edge taken are stored with this node
    // begun, in one write (nothing is awaited between the previous node's end and here, so no
    // outcome can be lost between the two).
    // A visit counts when the node begins (one stored as begun before a restart was counted then).
    if (!record.nodeBegun) (record.nodeVisits ??= {})[node.name] = (record.nodeVisits?.[node.name] ?? 0) + 1;
    record.nodeBegun = true;
    await save();
    emit({ type: 'checkpoint', runId: record.id, node: node.name });

    const handler = options.handlers.get(node.handlerType);
    if (!handler) return end('failed', `node "${node.name}" has the type "${node.handlerType}", which no handler runs`);
    // `max_visits`: a loop through this node may come back at most so many times; then it fails (and its failure route decides).
    const visits = (record.nodeVisits ??= {});
    const maxVisits = Number(node.attributes.max_visits ?? 0);
    const handlerRun = (attempt: number, attemptSignal: AbortSignal): HandlerRun => {
      const run: HandlerRun = {
        pipeline,
        runId: record.id,
        interviewer: options.interviewer,
        signal: attemptSignal,
        attempt,
        fidelity,
        emit,
        waiting: async (waiting) => {
          record.status = waiting ? 'waiting' : 'running';
          await save();
        },
        runNode: (other, branchContext, branchSignal) => runBranchNode(stylesheet ? applyStylesheet(stylesheet, other) : other, branchContext, { ...run, signal: branchSignal }),
        runChild: options.loadChild && ((name, goal, childSignal) => runChildPipeline(name, goal, childSignal)),
      };
      return run;
    };
    const result: NodeResult =
      maxVisits > 0 && visits[node.name]! > maxVisits
        ? refuse(node.name, `"${node.name}" was reached ${visits[node.name]} times, more than its max_visits of ${maxVisits}`)
        : await attempts(node, (attempt, attemptSignal) => handler.execute(node, context, handlerRun(attempt, attemptSignal)));
    if (signal.aborted) return halt();
    // Stopped where it stands (the node runs again on resume) when calls are paused; else failed.
    if (refused) return refused.details['paused'] === true ? end('stopped', 'model calls are paused by an admin: the run stopped here, to go on once they resume') : end('failed', refused.message);
    record.status = 'running';

    // The context learns the outcome; the next node's edges see it.
    context.update(result.contextUpdates ?? {});
    context.update({ outcome: result.status, preferred_label: result.preferredLabel ?? '', current_node: node.name, last_stage: node.name });
    if (result.status === 'fail') {
      context.update({ _last_error: result.failureReason ?? 'failed', _failed_node: node.name });
      recordFeedback(context, node.name, result.failureReason ?? 'failed');
    }
    record.nodeOutcomes[node.name] = result.status;
    if (isSuccess(result.status)) record.completedNodes.push(node.name);
    context.set('_completed_nodes', [...record.completedNodes]);
    record.steps++;

    if (node.isTerminal) return end(result.status === 'fail' ? 'failed' : 'finished', result.status === 'fail' ? result.failureReason : undefined);
    const next = nextOf(pipeline, node, result, context);
    if ('end' in next) return next.end === 'finished' ? end('finished') : end('failed', next.error);
    emit({ type: 'edge', runId: record.id, from: node.name, to: next.node, label: next.edge?.label ?? '', step: next.step });
    if (next.edge?.loopRestart) {
      record.completedNodes = [];
      record.nodeOutcomes = {};
      record.nodeRetries = {};
      record.nodeVisits = {};
    }
    arrivedBy = next.edge;
    moveTo(next.node);
  }

  /**
   * A child run (a manager loop's sprint): the named pipeline with `goal`, the same handlers, person
   * and events, kept in memory (a restart runs the manager's node again, and so its sprint).
   */
  async function runChildPipeline(name: string, goal: string, childSignal: AbortSignal): Promise<{ status: string; error?: string; context: Record<string, unknown> }> {
    const child = { ...(await options.loadChild!(name)), goal };
    const now = Date.now();
    const childRecord: RunRecord = { id: `${record.id}.${name}`, pipeline: child.name, source: '', status: 'running', currentNode: child.startNode, nodeBegun: false, completedNodes: [], nodeOutcomes: {}, nodeRetries: {}, steps: 0, context: { data: { goal }, logs: [] }, startedAt: now, updatedAt: now };
    const memory = new RunStore(createStore({ driver: 'memory' }));
    // The child's nodes are not the run folder's: the hooks are the parent's nodes' alone.
    const done = await runPipeline(child, childRecord, { ...options, runs: memory, signal: childSignal, interrupted: undefined, maxSteps, hooks: undefined });
    return { status: done.status, error: done.error, context: done.context.data };
  }

  /** A node not run at all (past its `max_visits`): a failure, told like one. */
  function refuse(name: string, reason: string): NodeResult {
    emit({ type: 'node_end', runId: record.id, node: name, status: 'fail', durationMs: 0, failureReason: reason });
    return { status: 'fail', failureReason: reason };
  }

  /** The walk goes on at `target` (stored when it begins). */
  function moveTo(target: string): void {
    record.currentNode = target;
    record.nodeBegun = false;
  }

  /**
   * Runs the node's handler until it succeeds, fails for good or runs out of attempts. A throw or
   * `retry` is tried again up to `max_retries` (the pipeline's default when 0); past them the
   * node fails, or partly succeeds where `allow_partial` says so. Attempts are counted in the
   * record, so a restart does not give a node more than its due.
   */
  async function attempts(node: PipelineNode, once: (attempt: number, signal: AbortSignal) => Promise<NodeResult>): Promise<NodeResult> {
    const allowed = 1 + (node.maxRetries > 0 ? node.maxRetries : pipeline.defaultMaxRetry);
    const policy = retryPolicyOf(node, pipeline);
    for (;;) {
      const attempt = (record.nodeRetries[node.name] ?? 0) + 1;
      record.nodeRetries[node.name] = attempt;
      const step = { runId: record.id, attempt };
      await hooks(node.name, (hook) => hook.beforeNode?.(node, context, step));
      const started = Date.now();
      emit({ type: 'node_start', runId: record.id, node: node.name, attempt });
      // A gate's timeout is how long the person has, after which its default is taken (the gate's own business).
      const timed = node.timeout && node.handlerType !== 'wait.human';
      const attemptSignal = timed ? AbortSignal.any([signal, AbortSignal.timeout(node.timeout! * 1000)]) : signal;
      let result: NodeResult;
      try {
        result = await once(attempt, attemptSignal);
      } catch (error) {
        // Stopped: the node's files say it was running, as it was.
        if (signal.aborted) return { status: 'fail', failureReason: reasonOf(signal) };
        if (error instanceof BudgetExhaustedError) refused = error;
        const timedOut = attemptSignal.aborted;
        result = refused ? { status: 'fail', failureReason: error instanceof Error ? error.message : String(error) } : { status: 'retry', failureReason: timedOut ? `did not finish within its timeout of ${node.timeout} s` : errorMessage(error) };
      }
      const final = result.status !== 'retry' || attempt >= allowed;
      if (result.status === 'retry' && final) {
        const reason = `gave up after ${attempt} attempt${attempt === 1 ? '' : 's'}: ${result.failureReason ?? 'asked to retry'}`;
        result = node.allowPartial ? { ...result, status: 'partial_success', notes: reason } : { ...result, status: 'fail', failureReason: reason };
      }
      if (final && node.autoStatus && !result.notes) result = { ...result, notes: autoStatusNote(node.name, result, attempt) };
      const durationMs = Date.now() - started;
      emit({ type: 'node_end', runId: record.id, node: node.name, status: result.status, durationMs, failureReason: result.failureReason, usage: result.usage });
      await hooks(node.name, (hook) => hook.afterNode?.(node, context, result, { ...step, durationMs, final }));
      if (final) {
        // Attempts count per visit: a loop that comes back to the node starts its count afresh.
        delete record.nodeRetries[node.name];
        return result;
      }
      // A gate asks its person again at once; other nodes wait as their retry policy says.
      const delayMs = node.handlerType === 'wait.human' ? 0 : backoffDelay(policy, attempt, random);
      emit({ type: 'retry', runId: record.id, node: node.name, attempt, reason: result.failureReason ?? 'asked to retry', delayMs });
      await save();
      if (delayMs > 0) await sleep(delayMs, signal).catch(() => undefined);
      if (signal.aborted) return { status: 'fail', failureReason: reasonOf(signal) };
    }
  }

  /**
   * A parallel branch's node (the stylesheet applied): one attempt, told to the hooks like the
   * engine's own nodes (a throw is told as a failure, then thrown on to the branch).
   */
  async function runBranchNode(node: PipelineNode, branchContext: PipelineContext, run: HandlerRun): Promise<NodeResult> {
    const handler = options.handlers.get(node.handlerType);
    if (!handler) throw new Error(`no handler runs "${node.handlerType}"`);
    const step = { runId: record.id, attempt: 1 };
    await hooks(node.name, (hook) => hook.beforeNode?.(node, branchContext, step));
    const started = Date.now();
    let result: NodeResult;
    try {
      result = await handler.execute(node, branchContext, run);
    } catch (error) {
      const failed: NodeResult = { status: 'fail', failureReason: errorMessage(error) };
      await hooks(node.name, (hook) => hook.afterNode?.(node, branchContext, failed, { ...step, durationMs: Date.now() - started, final: true }));
      throw error;
    }
    await hooks(node.name, (hook) => hook.afterNode?.(node, branchContext, result, { ...step, durationMs: Date.now() - started, final: true }));
    return result;
  }

  /** Runs each hook's call in turn; one that throws is told, and the run goes on. */
  async function hooks(node: string, call: (hook: HandlerHook) => Promise<void> | void): Promise<void> {
    for (const hook of options.hooks ?? []) {
      try {
        await call(hook);
      } catch (error) {
        emit({ type: 'hook_failed', runId: record.id, node, error: errorMessage(error) });
      }
    }
  }
}

/** Where to go after `node` gave `result`. */
function nextOf(pipeline: Pipeline, node: PipelineNode, result: NodeResult, context: PipelineContext): Next {
  if (result.nextNode) {
    return pipeline.nodes.has(result.nextNode) ? { node: result.nextNode, step: 'next_node' } : { end: 'failed', error: `node "${node.name}" asked to go to "${result.nextNode}", which is not in the pipeline` };
  }
  // A condition that cannot be read counts as false, and the context says why.
  const options = { onConditionError: (failure: { message: string }) => context.set('_condition_error', failure.message) };
  if (result.status === 'fail') {
    const route = failureRoute(pipeline, node, context, { ...options, result });
    if (!route) return { end: 'failed', error: `node "${node.name}" failed: ${result.failureReason ?? 'no reason given'}` };
    return route.kind === 'edge' ? { node: route.edge.target, edge: route.edge, step: 'failure_route' } : { node: route.target, step: 'failure_route' };
  }
  const chosen = selectEdge(pipeline, node.name, result, context, options);
  if (chosen) return { node: chosen.edge.target, edge: chosen.edge, step: chosen.step };
  const outgoing = pipeline.edges.some((edge) => edge.source === node.name);
  return outgoing ? { end: 'failed', error: `no edge out of "${node.name}" applies (outcome ${result.status})` } : { end: 'finished' };
}

/** Failures kept in `feedback_history`. */
const feedbackKept = 20;

/**
 * Adds a failure to the context's `feedback_history` (the latest 20): which node failed, why, and
 * what the last agent answer before it was (the attempt that failed), so the next attempt sees
 * every earlier one and does not repeat a fix that already failed.
 */
function recordFeedback(context: PipelineContext, node: string, error: string): void {
  const history = Array.isArray(context.get('feedback_history')) ? [...(context.get('feedback_history') as unknown[])] : [];
  const tried = context.getString('last_response');
  history.push({ node, error: error.length > 1_500 ? `${error.slice(0, 1_500)}…` : error, ...(tried ? { after: tried.length > 600 ? `${tried.slice(0, 600)}…` : tried } : {}) });
  context.set('feedback_history', history.slice(-feedbackKept));
}

/** The note `auto_status` writes for a node whose handler gave none. */
function autoStatusNote(node: string, result: NodeResult, attempts: number): string {
  const reason = result.failureReason ? `: ${result.failureReason.split('\n')[0]!.slice(0, 300)}` : '';
  return `auto status: ${node} ended ${result.status} after ${attempts} attempt${attempts === 1 ? '' : 's'}${reason}`;
}

function reasonOf(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  return reason instanceof Error && reason.name !== 'AbortError' ? reason.message : 'stopped';
}
