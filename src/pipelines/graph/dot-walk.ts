/**
 * The meaning of a DOT graph's statements, as Graphviz gives it, before any pipeline rule: which
 * nodes and edges there are and the attributes each ends up with.
 *
 * - `node [..]` and `edge [..]` set defaults for the nodes and edges created after them, in their
 *   graph or subgraph and the subgraphs inside it; a subgraph starts with its parent's defaults as
 *   they are where it opens, and its own changes end with it.
 * - A node is created where it is first named (in a node statement or an edge); it takes the node
 *   defaults in force there. A later statement naming it again adds or replaces only the
 *   attributes it writes.
 * - `a -> b -> c` is two edges; `{a b} -> c` is an edge from each of `a` and `b`. Ports
 *   (`a:out`) are ignored. In a `strict` digraph a repeated edge is the same edge (its attributes
 *   merged); otherwise each statement adds its own.
 * - Graph attributes (`k=v` or `graph [k=v]`) count only at the top level; a subgraph's are its
 *   own (a cluster's label, say) and do not configure the pipeline.
 *
 * One rule is the pipeline's, not Graphviz's: a node counts as declared only when a node statement
 * names it. A name seen only in edges is kept aside, so validation can call it what it most
 * often is: a typo (`edge_target_exists`).
 */
import type { ASTNode, ClusterStatementASTNode, EdgeASTNode, FileRange, GraphASTNode, LiteralASTNode, NodeRefASTNode } from '@ts-graphviz/ast';
import type { SourceLocation } from '../types.ts';
import { decodeQuoted } from './values.ts';

/** An attribute's value (a quoted one decoded) and where it was written. */
export interface WrittenValue {
  value: string;
  location?: SourceLocation;
}

/** Attributes by name. */
export type WrittenAttributes = Map<string, WrittenValue>;

/** A node of the DOT graph. */
export interface DotNode {
  name: string;
  attributes: WrittenAttributes;
  /** Whether a node statement names it (not only edges). */
  declared: boolean;
  /** Its first node statement, else where it was first named. */
  location?: SourceLocation;
}

/** An edge of the DOT graph. */
export interface DotEdge {
  source: string;
  target: string;
  attributes: WrittenAttributes;
  /** Where its source is named in the edge statement. */
  location?: SourceLocation;
}

/** The whole graph, its statements resolved. */
export interface DotGraph {
  name: string | undefined;
  strict: boolean;
  /** In the order they were created. */
  nodes: DotNode[];
  edges: DotEdge[];
  attributes: WrittenAttributes;
}

interface Scope {
  nodeDefaults: WrittenAttributes;
  edgeDefaults: WrittenAttributes;
}

/** Resolves the statements of `graph` (see the module comment for the rules). */
export function walkDotGraph(graph: GraphASTNode): DotGraph {
  const nodes = new Map<string, DotNode>();
  const edges: DotEdge[] = [];
  const strictEdges = new Map<string, DotEdge>();
  const attributes: WrittenAttributes = new Map();

  const nodeNamed = (ref: { id: LiteralASTNode; location?: FileRange }, scope: Scope): DotNode => {
    const name = text(ref.id);
    let node = nodes.get(name);
    if (!node) {
      node = { name, attributes: new Map(scope.nodeDefaults), declared: false, location: locationOf(ref) };
      nodes.set(name, node);
    }
    return node;
  };

  const addEdge = (source: string, target: string, own: WrittenAttributes, location: SourceLocation | undefined) => {
    if (graph.strict) {
      // A strict graph has one edge per (tail, head): a repeated statement updates it.
      const key = `${source}\u0000${target}`;
      const existing = strictEdges.get(key);
      if (existing) {
        for (const [name, value] of own) existing.attributes.set(name, value);
        return;
      }
      const edge = { source, target, attributes: new Map(own), location };
      strictEdges.set(key, edge);
      edges.push(edge);
      return;
    }
    edges.push({ source, target, attributes: new Map(own), location });
  };

  const edgeStatement = (statement: EdgeASTNode, scope: Scope) => {
    const own = new Map(scope.edgeDefaults);
    for (const [name, value] of attributeList(statement.children)) own.set(name, value);
    const groups: NodeRefASTNode[][] = statement.targets.map((target) =>
      target.type === 'NodeRef' ? [target] : target.children.filter((child): child is NodeRefASTNode => child.type === 'NodeRef'),
    );
    // Every endpoint exists from here on, in the order written (DOT creates them left to right).
    for (const group of groups) for (const ref of group) nodeNamed(ref, scope);
    for (let index = 0; index + 1 < groups.length; index++) {
      for (const from of groups[index]!) {
        for (const to of groups[index + 1]!) addEdge(text(from.id), text(to.id), own, locationOf(from));
      }
    }
  };

  const walk = (statements: readonly ClusterStatementASTNode[], scope: Scope, top: boolean) => {
    for (const statement of statements) {
      switch (statement.type) {
        case 'Attribute':
          if (top) attributes.set(text(statement.key), written(statement.value));
          break;
        case 'AttributeList': {
          const list = attributeList(statement.children);
          if (statement.kind === 'Node') for (const [name, value] of list) scope.nodeDefaults.set(name, value);
          else if (statement.kind === 'Edge') for (const [name, value] of list) scope.edgeDefaults.set(name, value);
          else if (top) for (const [name, value] of list) attributes.set(name, value);
          break;
        }
        case 'Node': {
          const node = nodeNamed(statement, scope);
          if (!node.declared) {
            node.declared = true;
            node.location = locationOf(statement.id) ?? node.location;
          }
          for (const [name, value] of attributeList(statement.children)) node.attributes.set(name, value);
          break;
        }
        case 'Edge':
          edgeStatement(statement, scope);
          break;
        case 'Subgraph':
          walk(statement.children, { nodeDefaults: new Map(scope.nodeDefaults), edgeDefaults: new Map(scope.edgeDefaults) }, false);
          break;
        default:
          // Comments.
          break;
      }
    }
  };

  walk(graph.children, { nodeDefaults: new Map(), edgeDefaults: new Map() }, true);
  return { name: graph.id ? text(graph.id) : undefined, strict: graph.strict, nodes: [...nodes.values()], edges, attributes };
}

/** The attributes of a `[...]` list, in order (a repeated name: the last one). */
function attributeList(children: readonly ASTNode[]): Array<[string, WrittenValue]> {
  const list: Array<[string, WrittenValue]> = [];
  for (const child of children) if (child.type === 'Attribute') list.push([text(child.key), written(child.value)]);
  return list;
}

function written(literal: LiteralASTNode): WrittenValue {
  return { value: text(literal), location: locationOf(literal) };
}

/** A literal's text: quotes taken off and `\"` decoded; an HTML string's inner text as is. */
function text(literal: LiteralASTNode): string {
  return literal.quoted === true ? decodeQuoted(literal.value) : literal.value;
}

function locationOf(node: { location?: FileRange }): SourceLocation | undefined {
  const start = node.location?.start;
  return start ? { line: start.line, column: start.column } : undefined;
}
