/**
 * Where a node that FAILED goes (spec section 4, PipelineEngine: failure routing). In order:
 *
 * 1. An outgoing edge whose condition tests `outcome = fail` and holds (by weight, then target).
 *    Other edges are not taken on failure: an unconditional edge is the success path. An edge
 *    whose condition does not parse is reported through `onConditionError` and not taken.
 * 2. The node's `retry_target`.
 * 3. The node's `fallback_retry_target`.
 * 4. The pipeline's `retry_target`, then its `fallback_retry_target` (graph attributes, the
 *    defaults of every node: the node's own two come first because they are more specific).
 * 5. Nothing: `undefined`, and the engine stops the run with the failure as the reason.
 *
 * A target naming no node of the pipeline (validation only warns about it) is skipped to the next
 * step rather than sending the run nowhere.
 */
import type { ContextView, NodeResult, Pipeline, PipelineEdge, PipelineNode } from '../types.ts';
import { conditionMentionsFailure } from './conditions.ts';
import { edgeConditionHolds, edgeConditionParses, isConditional, outgoingEdges, type RoutingOptions } from './edge-conditions.ts';
import { bestEdge } from './edge-order.ts';

/** Where a failed node goes, and which rule said so (`from`: the node's attribute or the graph's). */
export type FailureRoute =
  | { kind: 'edge'; edge: PipelineEdge }
  | { kind: 'retry_target'; target: string; from: 'node' | 'pipeline' }
  | { kind: 'fallback_retry_target'; target: string; from: 'node' | 'pipeline' };

/** Options of {@link failureRoute}. */
export interface FailureRouteOptions extends RoutingOptions {
  /** The failed result, for `preferred_label` in conditions. */
  result?: Pick<NodeResult, 'preferredLabel'>;
}

/**
 * The route for `node` after a FAIL outcome, or `undefined` when there is none. Conditions are
 * evaluated with `outcome` = `fail`.
 */
export function failureRoute(pipeline: Pipeline, node: PipelineNode, context: ContextView, options?: FailureRouteOptions): FailureRoute | undefined {
  const variables = { outcome: 'fail', preferred_label: options?.result?.preferredLabel ?? '' };
  // An invalid condition cannot be read for `fail`, but its author may have meant one: report it.
  const failureEdges = outgoingEdges(pipeline, node.name).filter(
    (edge) =>
      isConditional(edge) &&
      edgeConditionParses(edge, options) &&
      conditionMentionsFailure(edge.condition!) &&
      edgeConditionHolds(edge, context, variables, options),
  );
  const edge = bestEdge(failureEdges);
  if (edge !== undefined) return { kind: 'edge', edge };

  const candidates: FailureRoute[] = [];
  const add = (kind: 'retry_target' | 'fallback_retry_target', target: string | undefined, from: 'node' | 'pipeline'): void => {
    const name = target?.trim();
    if (name !== undefined && pipeline.nodes.has(name)) candidates.push({ kind, target: name, from });
  };
  add('retry_target', node.retryTarget, 'node');
  add('fallback_retry_target', node.fallbackRetryTarget, 'node');
  add('retry_target', pipeline.retryTarget, 'pipeline');
  add('fallback_retry_target', pipeline.fallbackRetryTarget, 'pipeline');
  return candidates[0];
}
