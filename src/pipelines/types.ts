/**
 * The shapes of a pipeline: a directed graph of nodes (each run by a handler) and edges (each
 * perhaps with a condition), read from a DOT file, and what running a node gives back. Shared by
 * the parser and validator (`graph/`), the routing (`routing/`) and the engine.
 */

/** How a node's run ended. `partial_success` counts as a success. */
export type OutcomeStatus = 'success' | 'partial_success' | 'retry' | 'fail' | 'skipped';

/** The context fidelity modes (how much of the context a node is given). */
export const fidelityModes = ['full', 'truncate', 'compact', 'summary:low', 'summary:medium', 'summary:high'] as const;

/** One of {@link fidelityModes}. */
export type Fidelity = (typeof fidelityModes)[number];

/** The handler types operator runs. Any other `type` is a validation error naming the node. */
export const handlerTypes = ['start', 'exit', 'codergen', 'wait.human', 'conditional', 'parallel', 'parallel.fan_in', 'tool', 'stack.manager_loop'] as const;

/** One of {@link handlerTypes}. */
export type HandlerType = (typeof handlerTypes)[number];

/** Where in the DOT file something was written (1-based), when the parser knows. */
export interface SourceLocation {
  line: number;
  column: number;
}

/** A node of the graph, its attributes resolved to fields (the raw ones kept in `attributes`). */
export interface PipelineNode {
  /** The DOT node id: unique. */
  name: string;
  /** The handler that runs it: the `type` attribute, else inferred from `shape`. */
  handlerType: string;
  /** Every DOT attribute as written (strings), for handlers' own ones (`tool_command`, ...). */
  attributes: Readonly<Record<string, string>>;
  isStart: boolean;
  isTerminal: boolean;
  label: string;
  shape: string;
  classes: readonly string[];
  /** The prompt template (`{key}` from the context); `label` when absent. */
  prompt: string;
  /** 0: the pipeline's default. */
  maxRetries: number;
  allowPartial: boolean;
  goalGate: boolean;
  retryTarget?: string;
  fallbackRetryTarget?: string;
  fidelity?: string;
  threadId?: string;
  /** Seconds. */
  timeout?: number;
  /** A model id or alias (the node's, else the stylesheet's). */
  model?: string;
  provider?: string;
  /**
   * Set by the node or the stylesheet; unset, the step thinks as the run's profile and model do
   * (not the spec's default of `high`, which would make every step of every pipeline think).
   */
  reasoningEffort?: 'low' | 'medium' | 'high';
  temperature?: number;
  maxTokens?: number;
  autoStatus: boolean;
  location?: SourceLocation;
}

/** An edge of the graph. */
export interface PipelineEdge {
  source: string;
  target: string;
  /** A condition expression (see `routing/conditions.ts`); unset: unconditional. */
  condition?: string;
  label: string;
  /** Higher first. */
  weight: number;
  fidelity?: string;
  threadId?: string;
  /** Taking this edge forgets the completed nodes and their outcomes (a loop starts over). */
  loopRestart: boolean;
  location?: SourceLocation;
}

/** A whole pipeline, as parsed. */
export interface Pipeline {
  /** The DOT graph's name. */
  name: string;
  /** By name, in the order they were declared. */
  nodes: ReadonlyMap<string, PipelineNode>;
  edges: readonly PipelineEdge[];
  /** The start node's name ('' when there is none: validation says so). */
  startNode: string;
  /** Graph attributes as written. */
  attributes: Readonly<Record<string, string>>;
  goal: string;
  /** Retries of a node that says none. Default 50. */
  defaultMaxRetry: number;
  retryTarget?: string;
  fallbackRetryTarget?: string;
  defaultFidelity?: string;
  /** The `model_stylesheet` graph attribute, as written. */
  modelStylesheet?: string;
  /** The file it was read from, for messages. */
  file?: string;
  /** Where each graph attribute was written, when the parser knows (for validation findings). */
  attributeLocations?: Readonly<Record<string, SourceLocation>>;
}

/** What a handler gives back for one run of a node. */
export interface NodeResult {
  status: OutcomeStatus;
  /** What it produced (a codergen node's answer, a tool's output), for logs and the context. */
  output?: string;
  failureReason?: string;
  /** Go to this node, whatever the edges say. */
  nextNode?: string;
  /** Merged into the context after the run. */
  contextUpdates?: Record<string, unknown>;
  /** Prefer the outgoing edge with this label (a gate's answer). */
  preferredLabel?: string;
  suggestedNextIds?: readonly string[];
  notes?: string;
  /** The model calls it made (a `codergen` node's), for the run folder. */
  usage?: NodeUsage;
}

/** Tokens and cost (USD) of a node's model calls. */
export interface NodeUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  cost: number;
}

/** Adds two usages (either may be absent). */
export function addUsage(a: NodeUsage | undefined, b: NodeUsage | undefined): NodeUsage | undefined {
  if (!a || !b) return a ?? b;
  return { input: a.input + b.input, output: a.output + b.output, cacheRead: a.cacheRead + b.cacheRead, cacheWrite: a.cacheWrite + b.cacheWrite, cost: a.cost + b.cost };
}

/** Whether `status` counts as a success. */
export function isSuccess(status: OutcomeStatus): boolean {
  return status === 'success' || status === 'partial_success';
}

/** How bad a validation finding is. */
export type ValidationLevel = 'error' | 'warning' | 'info';

/** One finding of validation, with where it is. */
export interface ValidationFinding {
  level: ValidationLevel;
  /** The rule's name (`start_node`, `reachability`, ...). */
  rule: string;
  message: string;
  node?: string;
  edge?: { source: string; target: string };
  location?: SourceLocation;
  /** How to fix it, when obvious. */
  fix?: string;
}

/** Read-only access to the run's context, as conditions see it. */
export interface ContextView {
  get(key: string): unknown;
}
