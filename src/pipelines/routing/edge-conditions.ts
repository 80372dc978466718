/**
 * Evaluating an edge's condition during a run. A condition that does not parse (validation should
 * have refused it, but a pipeline may be run unvalidated) counts as false and is reported, so the
 * engine can record it in `_condition_error` instead of the run failing mid-way.
 */
import type { ContextView, NodeResult, PipelineEdge, Pipeline } from '../types.ts';
import { ConditionError, evaluateCondition, parseCondition, type ConditionVariables } from './conditions.ts';

/** A condition that could not be evaluated, with a line for `_condition_error` and logs. */
export interface EdgeConditionFailure {
  edge: PipelineEdge;
  error: ConditionError;
  /** `edge review -> done: condition "x == 1": Use `=` for equality checks (...)`. */
  message: string;
}

/** Options every routing function takes. */
export interface RoutingOptions {
  /**
   * Called for each edge whose condition failed to evaluate (then treated as false), as it is
   * found. The engine sets `_condition_error` to `failure.message` here.
   */
  onConditionError?: (failure: EdgeConditionFailure) => void;
}

/**
 * Whether the edge has a condition. A blank one (`condition=""`) is the same as none: the spec's
 * empty expression is true, so the edge is unconditional.
 */
export function isConditional(edge: PipelineEdge): boolean {
  return edge.condition !== undefined && edge.condition.trim() !== '';
}

/** The edges leaving `nodeName`, in declaration order. */
export function outgoingEdges(pipeline: Pipeline, nodeName: string): PipelineEdge[] {
  return pipeline.edges.filter((edge) => edge.source === nodeName);
}

/** The engine-injected variables for a node's result: `outcome` and `preferred_label`. */
export function routingVariables(result: Pick<NodeResult, 'status' | 'preferredLabel'>): ConditionVariables {
  return { outcome: result.status, preferred_label: result.preferredLabel ?? '' };
}

/**
 * Whether the edge's condition holds (an unconditional edge: true). A {@link ConditionError} is
 * reported through `options.onConditionError` and counts as false; any other error propagates.
 */
export function edgeConditionHolds(edge: PipelineEdge, context: ContextView, variables: ConditionVariables, options?: RoutingOptions): boolean {
  if (!isConditional(edge)) return true;
  try {
    return evaluateCondition(edge.condition!, context, variables);
  } catch (error) {
    if (!(error instanceof ConditionError)) throw error;
    report(edge, error, options);
    return false;
  }
}

/**
 * Whether the edge's condition parses (an unconditional edge: true); when it does not, the error
 * is reported as {@link edgeConditionHolds} would.
 */
export function edgeConditionParses(edge: PipelineEdge, options?: RoutingOptions): boolean {
  if (!isConditional(edge)) return true;
  try {
    parseCondition(edge.condition!);
    return true;
  } catch (error) {
    if (!(error instanceof ConditionError)) throw error;
    report(edge, error, options);
    return false;
  }
}

function report(edge: PipelineEdge, error: ConditionError, options: RoutingOptions | undefined): void {
  const message = `edge ${edge.source} -> ${edge.target}: condition ${JSON.stringify(edge.condition)}: ${error.message}`;
  options?.onConditionError?.({ edge, error, message });
}
