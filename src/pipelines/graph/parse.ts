/**
 * `parsePipeline`: a DOT file to a {@link Pipeline} (spec section 2). The DOT text is read by
 * ts-graphviz's parser (`dot-syntax.ts`), its statements resolved as Graphviz does
 * (`dot-walk.ts`); here the attributes become typed fields, and the start, exits and handlers are
 * found (`roles.ts`).
 *
 * It throws only for a file that cannot be a pipeline at all: a syntax error, an undirected
 * graph, attribute values of the wrong type (all of them in one error). Everything else a file
 * can get wrong (no start, an unknown type, an unreachable node, ...) is for `validatePipeline`,
 * which reports every finding with its place instead of stopping at the first.
 */
import { basename, extname } from 'node:path';
import type { Pipeline, PipelineEdge, PipelineNode, SourceLocation } from '../types.ts';
import { readDotGraph } from './dot-syntax.ts';
import { walkDotGraph, type DotEdge, type DotNode, type WrittenAttributes } from './dot-walk.ts';
import { PipelineSyntaxError, type PipelineProblem } from './errors.ts';
import { defaultShape, detectStartNodes, inferHandlerType, isTerminalNode, type RoleFacts } from './roles.ts';
import { decodeEscString, parseBoolean, parseDecimal, parseDuration, parseInteger, parseReasoningEffort, type EscNames, type Parsed } from './values.ts';

export { incomingEdges, outgoingEdges } from './edges.ts';

/** Retries of a node that says none, when the graph does not say (spec: 50). */
export const defaultMaxRetry = 50;

/**
 * Reads a pipeline from DOT text.
 *
 * @param file Where the text came from, for messages (and the pipeline's name when the graph has none).
 * @throws {PipelineSyntaxError} on a syntax error (with line, column and what was expected), an
 *   undirected graph, or attribute values that are not of their type.
 */
export function parsePipeline(source: string, file?: string): Pipeline {
  const graph = readDotGraph(source, file);
  if (!graph.directed) {
    const id = graph.id?.value;
    const start = graph.location?.start;
    const message = `the graph${id ? ` "${id}"` : ''} is undirected (\`graph\`): a pipeline is a directed graph, written \`digraph${id ? ` ${id}` : ''} { a -> b }\``;
    throw new PipelineSyntaxError([{ message, line: start?.line, column: start?.column }], { file });
  }
  const dot = walkDotGraph(graph);
  const problems: PipelineProblem[] = [];
  const name = dot.name ?? fileStem(file);

  const outgoingCount = new Map<string, number>();
  for (const edge of dot.edges) outgoingCount.set(edge.source, (outgoingCount.get(edge.source) ?? 0) + 1);
  const declared = dot.nodes.filter((node) => node.declared);
  const facts = declared.map(roleFacts);
  const starts = new Set(detectStartNodes(facts));

  const nodes = new Map<string, PipelineNode>();
  declared.forEach((node, index) => {
    nodes.set(node.name, buildNode(node, facts[index]!, starts.has(node.name), outgoingCount.get(node.name) ?? 0, name, problems));
  });
  const edges = dot.edges.map((edge) => buildEdge(edge, name, problems));

  const graphAttributes = new AttributeReader(dot.attributes, 'graph attribute', problems);
  const pipeline: Pipeline = {
    name,
    nodes,
    edges,
    startNode: [...starts][0] ?? '',
    attributes: plain(dot.attributes),
    goal: decodeEscString(graphAttributes.raw('goal') ?? '', { graph: name }),
    defaultMaxRetry: graphAttributes.read('default_max_retry', (text) => parseInteger(text, 0)) ?? defaultMaxRetry,
    retryTarget: graphAttributes.name('retry_target'),
    fallbackRetryTarget: graphAttributes.name('fallback_retry_target'),
    defaultFidelity: graphAttributes.name('default_fidelity'),
    modelStylesheet: nonBlank(decodeEscString(graphAttributes.raw('model_stylesheet') ?? '', { graph: name })),
    file,
    attributeLocations: locations(dot.attributes),
  };
  if (problems.length > 0) {
    problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
    throw new PipelineSyntaxError(problems, { file });
  }
  return withoutUndefined(pipeline);
}

function buildNode(dot: DotNode, facts: RoleFacts, isStart: boolean, outgoing: number, graphName: string, problems: PipelineProblem[]): PipelineNode {
  const read = new AttributeReader(dot.attributes, `node "${dot.name}"`, problems, dot.name);
  const names: EscNames = { node: dot.name, graph: graphName };
  const handlerType = inferHandlerType(facts, isStart);
  const label = decodeEscString(read.raw('label') ?? '', names);
  const prompt = nonBlank(decodeEscString(read.raw('prompt') ?? '', names)) ?? label;
  return withoutUndefined({
    name: dot.name,
    handlerType,
    attributes: plain(dot.attributes),
    isStart,
    isTerminal: isTerminalNode(facts, handlerType, outgoing),
    label,
    shape: facts.shape,
    classes: (read.raw('class') ?? '').split(/[\s,]+/).filter((name) => name !== ''),
    prompt,
    maxRetries: read.read('max_retries', (text) => parseInteger(text, 0)) ?? 0,
    allowPartial: read.read('allow_partial', parseBoolean) ?? false,
    goalGate: read.read('goal_gate', parseBoolean) ?? false,
    retryTarget: read.name('retry_target'),
    fallbackRetryTarget: read.name('fallback_retry_target'),
    fidelity: read.name('fidelity'),
    threadId: read.name('thread_id'),
    timeout: read.read('timeout', parseDuration),
    model: read.name('model') ?? read.name('llm_model'),
    provider: read.name('provider') ?? read.name('llm_provider'),
    // Unset unless the file sets it: the spec's default of `high` would make every step think.
    reasoningEffort: read.read('reasoning_effort', parseReasoningEffort),
    temperature: read.read('temperature', (text) => parseDecimal(text, 0)),
    maxTokens: read.read('max_tokens', (text) => parseInteger(text, 1)),
    autoStatus: read.read('auto_status', parseBoolean) ?? false,
    location: dot.location,
  });
}

function buildEdge(dot: DotEdge, graphName: string, problems: PipelineProblem[]): PipelineEdge {
  const read = new AttributeReader(dot.attributes, `edge ${dot.source} -> ${dot.target}`, problems);
  return withoutUndefined({
    source: dot.source,
    target: dot.target,
    condition: read.name('condition'),
    label: decodeEscString(read.raw('label') ?? '', { graph: graphName, edge: dot }),
    weight: read.read('weight', (text) => parseInteger(text)) ?? 0,
    fidelity: read.name('fidelity'),
    threadId: read.name('thread_id'),
    loopRestart: read.read('loop_restart', parseBoolean) ?? false,
    location: dot.location,
  });
}

function roleFacts(node: DotNode): RoleFacts {
  return {
    name: node.name,
    shape: nonBlank(node.attributes.get('shape')?.value.trim()) ?? defaultShape,
    type: nonBlank(node.attributes.get('type')?.value.trim()),
  };
}

/** Typed reads of one owner's attributes; a value of the wrong type is recorded as a problem. */
class AttributeReader {
  constructor(
    private readonly attributes: WrittenAttributes,
    private readonly owner: string,
    private readonly problems: PipelineProblem[],
    private readonly node?: string,
  ) {}

  /** The value as written, or undefined. */
  raw(attribute: string): string | undefined {
    return this.attributes.get(attribute)?.value;
  }

  /** A name or mode: trimmed, and a blank value counts as unset. */
  name(attribute: string): string | undefined {
    return nonBlank(this.raw(attribute)?.trim());
  }

  /** The value parsed by `parse`; undefined when unset, blank, or wrong (then a problem is recorded). */
  read<T>(attribute: string, parse: (text: string) => Parsed<T>): T | undefined {
    const written = this.attributes.get(attribute);
    if (written === undefined || written.value.trim() === '') return undefined;
    const parsed = parse(written.value);
    if ('value' in parsed) return parsed.value;
    this.problems.push({
      message: `${this.owner}: ${attribute}: ${parsed.error}`,
      line: written.location?.line,
      column: written.location?.column,
      node: this.node,
      attribute,
    });
    return undefined;
  }
}

function plain(attributes: WrittenAttributes): Record<string, string> {
  return Object.fromEntries([...attributes].map(([name, written]) => [name, written.value]));
}

function locations(attributes: WrittenAttributes): Record<string, SourceLocation> {
  // fromEntries, not assignment: an attribute named `__proto__` must stay an attribute.
  return Object.fromEntries([...attributes].flatMap(([name, written]) => (written.location ? [[name, written.location]] : [])));
}

function nonBlank(text: string | undefined): string | undefined {
  return text === undefined || text.trim() === '' ? undefined : text;
}

/** `deploy` for `pipelines/deploy.dot`; '' without a file. */
function fileStem(file: string | undefined): string {
  return file === undefined ? '' : basename(file, extname(file));
}

/**
 * A copy of `value` without its undefined fields (they would show up as `key: undefined` in
 * checkpoints and test diffs). Copied rather than deleted from: `delete` would leave the object
 * in V8's slow dictionary mode, and the engine reads these objects at every step.
 */
function withoutUndefined<T extends object>(value: T): T {
  const result: Record<string, unknown> = {};
  for (const key in value) if (value[key] !== undefined) result[key] = value[key];
  return result as T;
}
