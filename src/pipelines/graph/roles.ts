/**
 * Which node starts a pipeline, which end it, and which handler runs a node that does not say
 * (spec section 2: "Shape-to-handler inference", "Start node detection", "Terminal node
 * detection", and the built-in handler table, which says `start` and `exit` are also detected by
 * the node's name).
 */

/** The shape that marks the start node. */
export const startShape = 'Mdiamond';
/** The shape that marks an exit node. */
export const exitShape = 'Msquare';
/** The shape a node has when it names none (spec: default `box`). */
export const defaultShape = 'box';

/** What detection needs to know of a node. */
export interface RoleFacts {
  name: string;
  shape: string;
  /** The `type` attribute, when written (trimmed, non-empty). */
  type: string | undefined;
}

/** Whether the name alone makes a node the start (`start`, any case). */
export function isStartName(name: string): boolean {
  return name.toLowerCase() === 'start';
}

/** Whether the name alone makes a node an exit (`exit` or `end`, any case). */
export function isExitName(name: string): boolean {
  const lower = name.toLowerCase();
  return lower === 'exit' || lower === 'end';
}

/**
 * The start nodes, in the spec's order: the nodes with `shape=Mdiamond` (or, the same thing said
 * with the type, `type=start`); only when there is none, the node named `start`. More than one
 * means the pipeline is ambiguous: validation says so (`start_node`). Shapes are compared exactly,
 * as Graphviz does.
 */
export function detectStartNodes(nodes: readonly RoleFacts[]): string[] {
  const marked = nodes.filter((node) => node.shape === startShape || node.type === 'start').map((node) => node.name);
  if (marked.length > 0) return marked;
  return nodes.filter((node) => isStartName(node.name)).map((node) => node.name);
}

/**
 * The handler of a node: its `type` when written; else `start` for `shape=Mdiamond`, `exit` for
 * `shape=Msquare`; else, by name, `start` for the start node found by its name and `exit` for a
 * node named `exit` or `end`; else `codergen`. (A node named `start` while another has
 * `shape=Mdiamond` is not the start, so it stays `codergen`.)
 */
export function inferHandlerType(node: RoleFacts, isStart: boolean): string {
  if (node.type !== undefined) return node.type;
  if (node.shape === startShape) return 'start';
  if (node.shape === exitShape) return 'exit';
  if (isStart && isStartName(node.name)) return 'start';
  if (isExitName(node.name)) return 'exit';
  return 'codergen';
}

/**
 * Whether a node ends the pipeline (any of): `shape=Msquare` or the `exit` handler, the name
 * `exit` or `end`, or no outgoing edges. An exit that has outgoing edges is an error
 * (`exit_no_outgoing`): the engine stops there and never takes them.
 */
export function isTerminalNode(node: RoleFacts, handlerType: string, outgoingCount: number): boolean {
  return node.shape === exitShape || handlerType === 'exit' || isExitName(node.name) || outgoingCount === 0;
}
