/**
 * Choosing the edge to follow after a node ran (spec section 4, PipelineEngine: the five-step
 * edge selection). The steps, first match wins:
 *
 * 1. Conditional edges whose condition holds: highest weight, then target ascending.
 * 2. The result's `preferredLabel` against edge labels (see `label-match.ts`).
 * 3. The result's `suggestedNextIds`, in their order, against edge targets.
 * 4. Unconditional edges (no condition, or a blank one): by weight, then target.
 * 5. Any edge: by weight, then target.
 *
 * Steps 2, 3 and 5 consider every outgoing edge, including conditional ones whose condition was
 * false, as the spec's "any edge" says: step 5 only ever matters when every edge is conditional
 * and none holds (otherwise step 4 chooses), so it exists precisely to move on through a false
 * condition rather than stop. The engine gets the step, so it can say "no condition matched".
 * `NodeResult.nextNode` ("go there whatever the edges say") is the engine's to apply before
 * calling this.
 */
import type { ContextView, NodeResult, Pipeline, PipelineEdge } from '../types.ts';
import { edgeConditionHolds, isConditional, outgoingEdges, routingVariables, type RoutingOptions } from './edge-conditions.ts';
import { bestEdge } from './edge-order.ts';
import { matchPreferredLabel } from './label-match.ts';

export { failureRoute, type FailureRoute, type FailureRouteOptions } from './failure-route.ts';
export type { EdgeConditionFailure, RoutingOptions } from './edge-conditions.ts';

/** Which of the five steps chose the edge. */
export type SelectionStep = 1 | 2 | 3 | 4 | 5;

/** The chosen edge and the step that chose it. */
export interface EdgeSelection {
  edge: PipelineEdge;
  step: SelectionStep;
}

/**
 * The edge to follow from `nodeName` after it gave `result`, or `undefined` when it has no
 * outgoing edges. Conditions see `outcome` (the result's status) and `preferred_label` (its
 * preferred label, or `''`) before the context. A condition that fails to evaluate counts as
 * false and is reported through `options.onConditionError`.
 */
export function selectEdge(pipeline: Pipeline, nodeName: string, result: NodeResult, context: ContextView, options?: RoutingOptions): EdgeSelection | undefined {
  const edges = outgoingEdges(pipeline, nodeName);
  if (edges.length === 0) return undefined;

  const variables = routingVariables(result);
  const conditional = edges.filter(isConditional);
  const holding = conditional.filter((edge) => edgeConditionHolds(edge, context, variables, options));
  const byCondition = bestEdge(holding);
  if (byCondition !== undefined) return { edge: byCondition, step: 1 };

  if (result.preferredLabel !== undefined) {
    const byLabel = matchPreferredLabel(edges, result.preferredLabel);
    if (byLabel !== undefined) return { edge: byLabel, step: 2 };
  }

  for (const id of result.suggestedNextIds ?? []) {
    const bySuggestion = bestEdge(edges.filter((edge) => edge.target === id.trim()));
    if (bySuggestion !== undefined) return { edge: bySuggestion, step: 3 };
  }

  const unconditional = bestEdge(edges.filter((edge) => !isConditional(edge)));
  if (unconditional !== undefined) return { edge: unconditional, step: 4 };

  return { edge: bestEdge(edges)!, step: 5 };
}
