/**
 * The handler contract: what runs one node. A handler gets the node (its attributes resolved,
 * the stylesheet applied), the run's context and what the run offers (the pipeline, the person to
 * ask, the signal that stops it), and answers with a {@link NodeResult}. It may throw: the engine
 * takes a throw as a failed attempt with the error as its reason.
 */
import type { Interviewer } from '../engine/interviewer.ts';
import type { PipelineContext } from '../engine/pipeline-context.ts';
import type { PipelineEvent } from '../engine/pipeline-events.ts';
import type { Fidelity, NodeResult, Pipeline, PipelineNode } from '../types.ts';

/** What a handler may use besides the node and the context. */
export interface HandlerRun {
  pipeline: Pipeline;
  runId: string;
  interviewer: Interviewer;
  /** Aborted when the run stops (or the node's timeout passes). */
  signal: AbortSignal;
  /** Attempt of this node, from 1. */
  attempt: number;
  /** How much of the context this node should be given (see `routing/fidelity.ts`). */
  fidelity: Fidelity;
  /** Marks the run as waiting for a person (a gate) or working again; stored at once. */
  waiting(waiting: boolean): Promise<void>;
  /** Tells whoever follows the run (the chat's progress, the terminal, the logs). */
  emit(event: PipelineEvent): void;
  /** Runs another node's handler (parallel branches). */
  runNode(node: PipelineNode, context: PipelineContext, signal: AbortSignal): Promise<NodeResult>;
  /**
   * Runs pipeline `name` (looked up as `/run NAME` would) to its end as a child of this run, with
   * `goal`, the same handlers and person to ask; resolves to how it ended and its final context.
   * Unset where no pipelines can be looked up.
   */
  runChild?(name: string, goal: string, signal: AbortSignal): Promise<{ status: string; error?: string; context: Record<string, unknown> }>;
}

/** Runs nodes of one handler type. */
export interface NodeHandler {
  execute(node: PipelineNode, context: PipelineContext, run: HandlerRun): Promise<NodeResult>;
}

/** Handlers by type. */
export type HandlerRegistry = ReadonlyMap<string, NodeHandler>;

/** Which attempt of which run a hook is told about. */
export interface HookStep {
  runId: string;
  /** Attempt of this node's visit, from 1. */
  attempt: number;
}

/**
 * Told before and after each attempt of a node the engine runs (the spec's `HandlerHook`; the run
 * folder is one). `afterNode` gets the attempt's result as the engine takes it: on the last
 * attempt, a `retry` already turned into the failure (or partial success) it ends as, and `final`
 * set. Awaited; a hook that throws is told as a `hook_failed` event and the run goes on.
 */
export interface HandlerHook {
  beforeNode?(node: PipelineNode, context: PipelineContext, step: HookStep): Promise<void> | void;
  afterNode?(node: PipelineNode, context: PipelineContext, result: NodeResult, step: HookStep & { durationMs: number; final: boolean }): Promise<void> | void;
}
