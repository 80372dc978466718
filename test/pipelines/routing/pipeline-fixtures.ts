/** Small Pipeline values for the routing tests, built directly (no DOT parser). */
import type { ContextView, NodeResult, Pipeline, PipelineEdge, PipelineNode } from '../../../src/pipelines/types.ts';

/** A node with every field at its default. */
export function node(name: string, fields: Partial<PipelineNode> = {}): PipelineNode {
  return {
    name,
    handlerType: 'codergen',
    attributes: {},
    isStart: false,
    isTerminal: false,
    label: name,
    shape: 'box',
    classes: [],
    prompt: name,
    maxRetries: 0,
    allowPartial: false,
    goalGate: false,
    reasoningEffort: 'high',
    autoStatus: false,
    ...fields,
  };
}

/** An edge `source -> target`, unconditional, weight 0, unless `fields` say otherwise. */
export function edge(source: string, target: string, fields: Partial<PipelineEdge> = {}): PipelineEdge {
  return { source, target, label: '', weight: 0, loopRestart: false, ...fields };
}

/** A pipeline of these edges; every node they name exists (plus `extraNodes`). */
export function pipeline(edges: PipelineEdge[], fields: Partial<Pipeline> = {}, extraNodes: PipelineNode[] = []): Pipeline {
  const nodes = new Map<string, PipelineNode>();
  for (const e of edges) for (const name of [e.source, e.target]) if (!nodes.has(name)) nodes.set(name, node(name));
  for (const n of extraNodes) nodes.set(n.name, n);
  return { name: 'test', nodes, edges, startNode: edges[0]?.source ?? '', attributes: {}, goal: '', defaultMaxRetry: 50, ...fields };
}

/** A context of these values. */
export function context(data: Record<string, unknown> = {}): ContextView {
  const values = new Map(Object.entries(data));
  return { get: (key) => values.get(key) };
}

/** A node result with this status (default success). */
export function result(fields: Partial<NodeResult> = {}): NodeResult {
  return { status: 'success', ...fields };
}
