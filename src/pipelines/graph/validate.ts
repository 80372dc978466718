/**
 * Static validation of a pipeline (spec section 4, "Pipeline Validation"): every rule of the
 * spec's table, each finding with its level, rule, place (node or edge, line and column) and a fix
 * when one is obvious. Errors stop a run (`operator pipeline validate` exits 1); warnings do not,
 * unless `--strict`.
 *
 * Where operator differs from the spec, and the choices the spec leaves open:
 * - `type_known` is an ERROR, not a warning: a pipeline must not start with a step nothing can run.
 * - `edge_target_exists`: DOT creates a node for any name an edge mentions, so an edge can always
 *   find its nodes; but a name seen only in edges, never in a node statement, is nearly always a
 *   typo (`review -> implemnt`), and the parser leaves it out of `nodes` (as the spec's pydot-based
 *   parser does). Such an edge is this error, with the closest declared name as the fix.
 * - `cycles` (WARNING): a cycle is fine when a run can leave it: a retry loop (`test -> implement`
 *   on failure, `test -> done` on success) is the normal way to iterate. Only a cycle from which
 *   no exit can be reached along edges is reported (its nodes named once): a run that enters it
 *   goes round until `max_steps`. Conditions are not evaluated (a static check cannot know the
 *   outcomes), and retry targets do not count as a way out, since they are taken only on failure.
 * - `reachability` follows edges and also the retry targets (node and graph), because failure
 *   routing jumps to them: a node reached only as a retry target is reachable.
 * - `goal_gate_has_retry` is satisfied by a `retry_target` or a `fallback_retry_target`, on the
 *   node or the graph: the engine goes back to whichever is set.
 * - `dead_end` (WARNING, not in the spec): when the pipeline marks its exits (`shape=Msquare`, an
 *   exit by name or type), a node with no outgoing edges that is not one is most likely a missing
 *   edge; the spec's detection would silently end the pipeline there.
 */
import { parseOutputs } from '../node-outputs.ts';
import { validateConditionSyntax } from '../routing/conditions.ts';
import { asFidelity } from '../routing/fidelity.ts';
import { fidelityModes, handlerTypes, type Pipeline, type PipelineEdge, type PipelineNode, type SourceLocation, type ValidationFinding } from '../types.ts';
import { StylesheetSyntaxError } from './errors.ts';
import { reachable, reverse, stronglyConnectedComponents, type Adjacency } from './graph-analysis.ts';
import { exitShape, isExitName, startShape } from './roles.ts';
import { parseStylesheet } from './stylesheet.ts';
import { closestName } from './suggest.ts';
import { extraFindings, type LintRule } from './lint-rules.ts';

/** What validation may be told. */
export interface ValidateOptions {
  /** The handler types that can run; default {@link handlerTypes}. */
  knownHandlers?: readonly string[];
  /** The providers a node (or the stylesheet) may name; unset: not checked (`provider_known`). */
  knownProviders?: readonly string[];
  /** Rules of the caller's own, run after the others (the spec's `register_lint_rule`). */
  rules?: readonly LintRule[];
}

/** The attributes each handler type cannot run without (spec: `tool_command` for `tool`). */
export const requiredAttributes: Readonly<Record<string, readonly string[]>> = {
  tool: ['tool_command'],
  'stack.manager_loop': ['child'],
};

/** The pipeline and the lookups every rule uses, built once. */
interface Facts {
  pipeline: Pipeline;
  nodes: readonly PipelineNode[];
  outgoing: ReadonlyMap<string, readonly PipelineEdge[]>;
  incoming: ReadonlyMap<string, readonly PipelineEdge[]>;
  /** Edges between existing nodes, as successor lists. */
  flow: Adjacency;
  knownHandlers: readonly string[];
}

type Rule = (facts: Facts) => ValidationFinding[];

/**
 * Every finding for `pipeline`, rule by rule in the spec's order, and within a rule in the order
 * of the file. Never throws for anything a file can contain.
 */
export function validatePipeline(pipeline: Pipeline, options: ValidateOptions = {}): ValidationFinding[] {
  const facts = collectFacts(pipeline, options.knownHandlers ?? handlerTypes);
  return [...rules.flatMap((rule) => rule(facts)), ...extraFindings(pipeline, options.knownProviders, options.rules ?? [])];
}

/** Whether any finding is an error. */
export function hasErrors(findings: readonly ValidationFinding[]): boolean {
  return findings.some((finding) => finding.level === 'error');
}

/**
 * One finding as a line for the terminal, compiler style:
 * `file:line:col: error [rule] message (node X); fix: ...`. The parts not known are left out.
 */
export function formatFinding(finding: ValidationFinding, file?: string): string {
  const place = [file, finding.location?.line, finding.location?.column].filter((part) => part !== undefined && part !== '').join(':');
  const subject = finding.node !== undefined ? ` (node ${finding.node})` : finding.edge ? ` (edge ${finding.edge.source} -> ${finding.edge.target})` : '';
  const fix = finding.fix ? `; fix: ${finding.fix}` : '';
  return `${place ? `${place}: ` : ''}${finding.level} [${finding.rule}] ${finding.message}${subject}${fix}`;
}

function collectFacts(pipeline: Pipeline, knownHandlers: readonly string[]): Facts {
  const outgoing = new Map<string, PipelineEdge[]>();
  const incoming = new Map<string, PipelineEdge[]>();
  const flow = new Map<string, string[]>();
  for (const edge of pipeline.edges) {
    push(outgoing, edge.source, edge);
    push(incoming, edge.target, edge);
    if (pipeline.nodes.has(edge.source) && pipeline.nodes.has(edge.target)) push(flow, edge.source, edge.target);
  }
  return { pipeline, nodes: [...pipeline.nodes.values()], outgoing, incoming, flow, knownHandlers };
}

const startNode: Rule = ({ pipeline, nodes }) => {
  if (pipeline.startNode !== '' && !pipeline.nodes.has(pipeline.startNode)) {
    return [error('start_node', `the start node "${pipeline.startNode}" is not in the pipeline`, { fix: 'declare it, or mark another node with shape=Mdiamond' })];
  }
  const starts = nodes.filter((node) => node.isStart);
  if (starts.length === 0) {
    const miscased = nodes.find((node) => node.shape.toLowerCase() === startShape.toLowerCase());
    return [
      error('start_node', 'the pipeline has no start node (shape=Mdiamond, or a node named "start")', {
        fix: miscased
          ? `write shape=Mdiamond on "${miscased.name}" (shape names are case-sensitive)`
          : 'add `start [shape=Mdiamond]` with an edge to the first step',
      }),
    ];
  }
  return starts.slice(1).map((extra) =>
    error('start_node', `more than one start node: "${starts[0]!.name}" and "${extra.name}"`, { node: extra.name, location: extra.location, fix: 'keep one start node' }),
  );
};

const startNoIncoming: Rule = ({ pipeline, nodes, incoming }) => {
  // Every start candidate: with two of them, either may be the one meant.
  const starts = new Set(nodes.filter((node) => node.isStart).map((node) => node.name));
  if (pipeline.nodes.has(pipeline.startNode)) starts.add(pipeline.startNode);
  return [...starts].flatMap((start) => incoming.get(start) ?? []).map((edge) =>
    error('start_no_incoming', `the start node "${edge.target}" has an incoming edge from "${edge.source}"`, {
      edge: edgeRef(edge),
      location: edge.location,
      fix: 'point the edge at the first step after the start instead',
    }),
  );
};

const terminalNode: Rule = ({ nodes }) => {
  if (nodes.length === 0 || nodes.some((node) => node.isTerminal)) return [];
  return [error('terminal_node', 'the pipeline has no exit: every node has outgoing edges, so a run can never end', { fix: 'add `exit [shape=Msquare]` with an edge to it from the last step' })];
};

const deadEnd: Rule = ({ nodes, outgoing }) => {
  const marksExits = nodes.some((node) => markedExit(node));
  if (!marksExits) return [];
  return nodes
    .filter((node) => !markedExit(node) && (outgoing.get(node.name)?.length ?? 0) === 0)
    .map((node) =>
      warning('dead_end', `node "${node.name}" has no outgoing edges, so a run would end there without reaching an exit`, {
        node: node.name,
        location: node.location,
        fix: `add an edge from "${node.name}" to the next step (or to the exit)`,
      }),
    );
};

const exitNoOutgoing: Rule = ({ nodes, outgoing }) =>
  nodes.flatMap((node) => {
    const edges = outgoing.get(node.name) ?? [];
    if (!node.isTerminal || edges.length === 0) return [];
    const byName = node.shape !== exitShape && node.handlerType !== 'exit';
    return [
      error('exit_no_outgoing', `the exit node "${node.name}" has outgoing edges (to ${edges.map((edge) => `"${edge.target}"`).join(', ')}): a run ends at an exit, so they are never taken`, {
        node: node.name,
        location: node.location,
        fix: byName ? `rename "${node.name}" ("exit" and "end" are the names of exits)` : `remove the edges leaving "${node.name}"`,
      }),
    ];
  });

const typeKnown: Rule = ({ nodes, knownHandlers }) =>
  nodes
    .filter((node) => !knownHandlers.includes(node.handlerType))
    .map((node) => {
      const near = closestName(node.handlerType, knownHandlers);
      return error('type_known', `node "${node.name}" has the type "${node.handlerType}", which no handler runs`, {
        node: node.name,
        location: node.location,
        fix: near ? `did you mean type="${near}"?` : `use one of: ${knownHandlers.join(', ')}`,
      });
    });

const requiredAttributesRule: Rule = ({ nodes }) =>
  nodes.flatMap((node) =>
    (Object.hasOwn(requiredAttributes, node.handlerType) ? requiredAttributes[node.handlerType]! : [])
      .filter((attribute) => (node.attributes[attribute] ?? '').trim() === '')
      .map((attribute) =>
        error('required_attributes', `node "${node.name}" (${node.handlerType}) has no ${attribute}`, {
          node: node.name,
          location: node.location,
          fix: `add ${attribute}="..." to "${node.name}"`,
        }),
      ),
  );

/** A `codergen` node's `outputs` must declare usable names and types (see `node-outputs.ts`). */
const outputsSyntax: Rule = ({ nodes }) =>
  nodes.flatMap((node) => {
    const text = node.attributes.outputs;
    if (text === undefined || text.trim() === '') return [];
    try {
      parseOutputs(text);
      return [];
    } catch (problem) {
      return [error('outputs_syntax', `node "${node.name}": ${problem instanceof Error ? problem.message : String(problem)}`, { node: node.name, location: node.location })];
    }
  });

const edgeTargetExists: Rule = ({ pipeline }) =>
  pipeline.edges.flatMap((edge) =>
    [edge.source, edge.target]
      .filter((name, index, both) => !pipeline.nodes.has(name) && both.indexOf(name) === index)
      .map((missing) => {
        const near = closestName(missing, pipeline.nodes.keys());
        return error('edge_target_exists', `edge ${edge.source} -> ${edge.target}: no node "${missing}" is declared (a name that appears only in edges is most often a typo)`, {
          edge: edgeRef(edge),
          location: edge.location,
          fix: near ? `did you mean "${near}"?` : `declare it: ${missing} [prompt="..."]`,
        });
      }),
  );

const conditionSyntax: Rule = ({ pipeline }) =>
  pipeline.edges.flatMap((edge) => {
    if (edge.condition === undefined || edge.condition.trim() === '') return [];
    const problem = validateConditionSyntax(edge.condition);
    if (problem === undefined) return [];
    return [error('condition_syntax', `edge ${edge.source} -> ${edge.target}: condition "${edge.condition}": ${problem}`, { edge: edgeRef(edge), location: edge.location })];
  });

const reachability: Rule = ({ pipeline, nodes, flow }) => {
  if (!pipeline.nodes.has(pipeline.startNode)) return [];
  // Failure routing jumps to retry targets, so they are ways to get somewhere too.
  const routes = new Map<string, string[]>();
  for (const node of nodes) {
    const targets = [...(flow.get(node.name) ?? [])];
    for (const target of [node.retryTarget, node.fallbackRetryTarget]) if (target !== undefined && pipeline.nodes.has(target)) targets.push(target);
    routes.set(node.name, targets);
  }
  const graphTargets = [pipeline.retryTarget, pipeline.fallbackRetryTarget].filter((target): target is string => target !== undefined && pipeline.nodes.has(target));
  const seen = reachable([pipeline.startNode, ...graphTargets], routes);
  return nodes
    .filter((node) => !seen.has(node.name))
    .map((node) =>
      error('reachability', `node "${node.name}" cannot be reached from the start node "${pipeline.startNode}"`, {
        node: node.name,
        location: node.location,
        fix: `add an edge to "${node.name}", or remove it`,
      }),
    );
};

const cycles: Rule = ({ pipeline, nodes, flow }) => {
  const names = nodes.map((node) => node.name);
  const canExit = reachable(
    nodes.filter((node) => node.isTerminal).map((node) => node.name),
    reverse(flow),
  );
  return stronglyConnectedComponents(names, flow)
    .filter((component) => component.length > 1 || (flow.get(component[0]!) ?? []).includes(component[0]!))
    .filter((component) => !component.some((name) => canExit.has(name)))
    .map((component) => {
      const first = pipeline.nodes.get(component[0]!)!;
      const loop = component.length === 1 ? `node "${first.name}" loops to itself` : `nodes ${component.map((name) => `"${name}"`).join(', ')} form a cycle`;
      return warning('cycles', `${loop} with no way out to an exit: a run that gets there goes round until max_steps`, {
        node: first.name,
        location: first.location,
        fix: 'add an edge from the cycle (with a condition, e.g. outcome = success) toward an exit',
      });
    });
};

const retryTargetExists: Rule = ({ pipeline, nodes }) => {
  const findings: ValidationFinding[] = [];
  const check = (target: string | undefined, attribute: string, owner: string, where: { node?: string; location?: SourceLocation }) => {
    if (target === undefined || pipeline.nodes.has(target)) return;
    const near = closestName(target, pipeline.nodes.keys());
    findings.push(
      warning('retry_target_exists', `${owner}: ${attribute} "${target}" is not a node`, {
        ...where,
        fix: near ? `did you mean "${near}"?` : `name a node of the pipeline`,
      }),
    );
  };
  check(pipeline.retryTarget, 'retry_target', 'graph', { location: pipeline.attributeLocations?.['retry_target'] });
  check(pipeline.fallbackRetryTarget, 'fallback_retry_target', 'graph', { location: pipeline.attributeLocations?.['fallback_retry_target'] });
  for (const node of nodes) {
    const where = { node: node.name, location: node.location };
    check(node.retryTarget, 'retry_target', `node "${node.name}"`, where);
    check(node.fallbackRetryTarget, 'fallback_retry_target', `node "${node.name}"`, where);
  }
  return findings;
};

const goalGateHasRetry: Rule = ({ pipeline, nodes }) => {
  if (pipeline.retryTarget !== undefined || pipeline.fallbackRetryTarget !== undefined) return [];
  return nodes
    .filter((node) => node.goalGate && node.retryTarget === undefined && node.fallbackRetryTarget === undefined)
    .map((node) =>
      warning('goal_gate_has_retry', `goal gate "${node.name}" has no retry_target, nor has the graph: if it has not succeeded when the run reaches an exit, the run fails`, {
        node: node.name,
        location: node.location,
        fix: `add retry_target="NODE" to "${node.name}" (the step to go back to), or a graph-level retry_target`,
      }),
    );
};

const promptOnLlmNodes: Rule = ({ nodes }) =>
  nodes
    .filter((node) => node.handlerType === 'codergen' && node.prompt.trim() === '' && node.label.trim() === '')
    .map((node) =>
      warning('prompt_on_llm_nodes', `node "${node.name}" (codergen) has neither a prompt nor a label: the model would be asked nothing`, {
        node: node.name,
        location: node.location,
        fix: `add prompt="..." to "${node.name}"`,
      }),
    );

const stylesheetSyntax: Rule = ({ pipeline }) => {
  if (pipeline.modelStylesheet === undefined) return [];
  try {
    parseStylesheet(pipeline.modelStylesheet);
    return [];
  } catch (caught) {
    if (!(caught instanceof StylesheetSyntaxError)) throw caught;
    return [
      error('stylesheet_syntax', `model_stylesheet, line ${caught.line} column ${caught.column} of the stylesheet: ${caught.reason}`, {
        location: pipeline.attributeLocations?.['model_stylesheet'],
      }),
    ];
  }
};

const fidelityValid: Rule = ({ pipeline, nodes }) => {
  const findings: ValidationFinding[] = [];
  const check = (value: string | undefined, owner: string, where: Partial<Pick<ValidationFinding, 'node' | 'edge' | 'location'>>) => {
    if (value === undefined || asFidelity(value) !== undefined) return;
    const near = closestName(value, fidelityModes);
    findings.push(
      warning('fidelity_valid', `${owner}: "${value}" is not a fidelity mode (${fidelityModes.join(', ')}); it is ignored`, {
        ...where,
        fix: near ? `did you mean "${near}"?` : undefined,
      }),
    );
  };
  check(pipeline.defaultFidelity, 'graph default_fidelity', { location: pipeline.attributeLocations?.['default_fidelity'] });
  for (const node of nodes) check(node.fidelity, `node "${node.name}" fidelity`, { node: node.name, location: node.location });
  for (const edge of pipeline.edges) check(edge.fidelity, `edge ${edge.source} -> ${edge.target} fidelity`, { edge: edgeRef(edge), location: edge.location });
  return findings;
};

/** The rules, in the spec's order (`dead_end`, operator's own, after `terminal_node`). */
const rules: readonly Rule[] = [
  startNode,
  startNoIncoming,
  terminalNode,
  deadEnd,
  exitNoOutgoing,
  typeKnown,
  requiredAttributesRule,
  outputsSyntax,
  edgeTargetExists,
  conditionSyntax,
  reachability,
  cycles,
  retryTargetExists,
  goalGateHasRetry,
  promptOnLlmNodes,
  stylesheetSyntax,
  fidelityValid,
];

/** A node the file marks as an exit (not one that is terminal only for having no edges). */
function markedExit(node: PipelineNode): boolean {
  return node.shape === exitShape || node.handlerType === 'exit' || isExitName(node.name);
}

type Extra = Partial<Pick<ValidationFinding, 'node' | 'edge' | 'location' | 'fix'>>;

function error(rule: string, message: string, extra: Extra = {}): ValidationFinding {
  return finding('error', rule, message, extra);
}

function warning(rule: string, message: string, extra: Extra = {}): ValidationFinding {
  return finding('warning', rule, message, extra);
}

function finding(level: ValidationFinding['level'], rule: string, message: string, extra: Extra): ValidationFinding {
  const result: ValidationFinding = { level, rule, message };
  if (extra.node !== undefined) result.node = extra.node;
  if (extra.edge !== undefined) result.edge = extra.edge;
  if (extra.location !== undefined) result.location = extra.location;
  if (extra.fix !== undefined) result.fix = extra.fix;
  return result;
}

function edgeRef(edge: PipelineEdge): { source: string; target: string } {
  return { source: edge.source, target: edge.target };
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}
