/**
 * Reading DOT text into ts-graphviz's syntax tree, and turning its syntax errors into
 * {@link PipelineSyntaxError}s a person can act on: where (file, line, column), what the parser
 * expected in plain words (not its grammar's token names), and a hint for the mistakes its
 * grammar is stricter about than Graphviz (a line break inside a quoted string, a `;` after a
 * subgraph's `}`).
 */
import { DotSyntaxError, parse, type GraphASTNode } from '@ts-graphviz/ast';
import { PipelineSyntaxError } from './errors.ts';

/** What peggy (the parser generator behind ts-graphviz) puts in a syntax error's `cause`. */
interface PeggyFailure {
  expected?: readonly PeggyExpectation[] | null;
  found?: string | null;
  location?: { start: { line: number; column: number; offset: number } };
}

interface PeggyExpectation {
  type: string;
  text?: string;
  description?: string;
  parts?: readonly (string | readonly string[])[];
}

/** The one graph of a DOT text. @throws {PipelineSyntaxError} when the text is not DOT. */
export function readDotGraph(source: string, file: string | undefined): GraphASTNode {
  let dot;
  try {
    dot = parse(source, file === undefined ? {} : { filename: file });
  } catch (error) {
    throw syntaxError(error, source, file);
  }
  const graph = dot.children.find((child): child is GraphASTNode => child.type === 'Graph');
  if (!graph) throw new PipelineSyntaxError([{ message: 'syntax error: no graph: a pipeline is written `digraph NAME { ... }`', line: 1, column: 1 }], { file });
  return graph;
}

/** The parser's failure as a {@link PipelineSyntaxError}. */
function syntaxError(error: unknown, source: string, file: string | undefined): PipelineSyntaxError {
  if (!(error instanceof DotSyntaxError)) {
    // The parser's own limits (input size, number of elements): no position to give.
    const reason = error instanceof Error ? error.message : String(error);
    return new PipelineSyntaxError([{ message: `cannot read the DOT file: ${reason}` }], { file, cause: error });
  }
  const failure = (error.cause ?? {}) as PeggyFailure;
  const start = failure.location?.start;
  const expected = describeExpected(failure.expected ?? []);
  const found = failure.found === undefined ? undefined : failure.found === null ? 'end of input' : JSON.stringify(failure.found);
  let message: string;
  if (lineBreakInString(failure)) {
    // Its "expected" would be the closing quote, which reads as nonsense here.
    message = 'syntax error: a quoted string goes on to the next line; end the line with a backslash (\\) to continue it, or write \\n for a line break';
  } else {
    if (expected.length > 0 && found !== undefined) message = `syntax error: expected ${list(expected)} but ${found} found`;
    else message = `syntax error: ${error.message.replace(/\.$/, '')}`;
    const hint = hintFor(failure, source, error.message);
    if (hint) message += `; ${hint}`;
  }
  return new PipelineSyntaxError([{ message, line: start?.line, column: start?.column }], { file, expected, found, cause: error });
}

/** The parser's expectations in plain words, without the comment starters it always lists. */
function describeExpected(expectations: readonly PeggyExpectation[]): string[] {
  const words = new Set<string>();
  for (const expectation of expectations) {
    if (expectation.type === 'end') words.add('end of input');
    else if (expectation.type === 'other') words.add('a name');
    else if (expectation.type === 'class') for (const part of expectation.parts ?? []) words.add(typeof part === 'string' ? JSON.stringify(part) : `${part[0]}-${part[1]}`);
    else if (expectation.type === 'literal' && expectation.text !== undefined) {
      if (['#', '/*', '//'].includes(expectation.text)) continue;
      if (expectation.text === '"') words.add('a quoted string');
      else if (expectation.text === '<') words.add('an HTML string');
      else words.add(JSON.stringify(expectation.text));
    }
  }
  // A name and a quoted string are the same thing to the reader: an ID.
  if (words.has('a name') && words.has('a quoted string')) {
    words.delete('a quoted string');
    words.delete('an HTML string');
    words.delete('a name');
    words.add('a name or a quoted string');
  }
  // Sorted, so the message does not depend on the order the grammar tried things: symbols first.
  return [...words].sort();
}

/** Advice for other mistakes: a `;` ts-graphviz's grammar refuses though Graphviz takes it, an undirected edge. */
function hintFor(failure: PeggyFailure, source: string, message: string): string | undefined {
  const offset = failure.location?.start.offset;
  if (failure.found === ';' && offset !== undefined && source.slice(0, offset).trimEnd().endsWith('}')) {
    return "remove the ';' after the subgraph's closing brace (this parser does not take it)";
  }
  if (message.startsWith('In graph,')) return 'a pipeline is a directed graph: write `digraph NAME { a -> b }`';
  return undefined;
}

/**
 * A raw line break inside a quoted string: Graphviz takes it, ts-graphviz's grammar does not (a
 * backslash before the line break, DOT's continuation, works in both).
 */
function lineBreakInString(failure: PeggyFailure): boolean {
  return (failure.found === '\n' || failure.found === '\r') && (failure.expected ?? []).some((expectation) => expectation.text === '"');
}

/** `a`, `a or b`, `a, b or c`. */
function list(words: readonly string[]): string {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} or ${words.at(-1)}`;
}
