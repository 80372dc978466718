/** The edges at a node: leaving it in priority order, and arriving at it. */
import { compareEdgePriority } from '../routing/edge-order.ts';
import type { Pipeline, PipelineEdge } from '../types.ts';

/**
 * The edges leaving `node`, highest `weight` first, then by target name ascending (spec:
 * `outgoing_edges`; the same order as routing's). A new array each call.
 */
export function outgoingEdges(pipeline: Pipeline, node: string): PipelineEdge[] {
  return pipeline.edges.filter((edge) => edge.source === node).sort(compareEdgePriority);
}

/** The edges arriving at `node`, in the order they were written. A new array each call. */
export function incomingEdges(pipeline: Pipeline, node: string): PipelineEdge[] {
  return pipeline.edges.filter((edge) => edge.target === node);
}
