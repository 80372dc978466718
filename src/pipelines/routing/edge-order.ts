/**
 * The one order in which edges compete, wherever the spec says "by weight, then target":
 * higher `weight` first, then target name ascending.
 */
import type { PipelineEdge } from '../types.ts';

/**
 * Sort comparator: weight descending, then target ascending by UTF-16 code units (not the
 * locale's collation, so the choice is the same on every machine). Edges equal on both keep their
 * declaration order (the sort is stable). A weight that is not a finite number counts as 0.
 */
export function compareEdgePriority(a: PipelineEdge, b: PipelineEdge): number {
  const byWeight = weightOf(b) - weightOf(a);
  if (byWeight !== 0) return byWeight;
  return a.target < b.target ? -1 : a.target > b.target ? 1 : 0;
}

/** The first edge in {@link compareEdgePriority} order, or `undefined` when there is none. */
export function bestEdge(edges: readonly PipelineEdge[]): PipelineEdge | undefined {
  let best: PipelineEdge | undefined;
  for (const edge of edges) if (best === undefined || compareEdgePriority(edge, best) < 0) best = edge;
  return best;
}

function weightOf(edge: PipelineEdge): number {
  return Number.isFinite(edge.weight) ? edge.weight : 0;
}
