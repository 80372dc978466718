/**
 * The errors of reading a pipeline: a DOT file that is not a valid pipeline, and a model stylesheet
 * that does not parse. Both are configuration errors (not retryable: the file must be fixed), and
 * both say where the problem is, so the CLI can print `file:line:col: message` like a compiler.
 */
import { ConfigurationError } from '../../core/errors.ts';
import type { SourceLocation } from '../types.ts';

/** One thing wrong with a DOT file, and where. */
export interface PipelineProblem {
  message: string;
  /** 1-based, when known. */
  line?: number;
  column?: number;
  /** The node it concerns, if any. */
  node?: string;
  /** The attribute it concerns, if any. */
  attribute?: string;
}

/**
 * A DOT file that cannot become a pipeline: a syntax error (with what the parser expected), an
 * undirected graph, or attribute values of the wrong type. `message` has one line per problem,
 * each `file:line:column: what`; `line` and `column` are those of the first problem.
 */
export class PipelineSyntaxError extends ConfigurationError {
  readonly file: string | undefined;
  readonly line: number | undefined;
  readonly column: number | undefined;
  /** What the parser expected at that place (`"="`, `"}"`, ...); empty when not a parse error. */
  readonly expected: readonly string[];
  /** What it found instead (`end of input` when the file ended); undefined when not a parse error. */
  readonly found: string | undefined;
  /** Every problem found (attribute errors are all collected before throwing). */
  readonly problems: readonly PipelineProblem[];

  constructor(problems: readonly PipelineProblem[], options: { file?: string; expected?: readonly string[]; found?: string; cause?: unknown } = {}) {
    const first = problems[0] ?? { message: 'invalid pipeline' };
    super(problems.map((problem) => `${where(options.file, problem)}${problem.message}`).join('\n'), {
      file: options.file,
      line: first.line,
      column: first.column,
    });
    if (options.cause !== undefined) Object.defineProperty(this, 'cause', { value: options.cause, enumerable: false });
    this.file = options.file;
    this.line = first.line;
    this.column = first.column;
    this.expected = options.expected ?? [];
    this.found = options.found;
    this.problems = problems;
  }
}

/**
 * A model stylesheet (the `model_stylesheet` graph attribute) that does not parse, or has no rules.
 * `line` and `column` are within the stylesheet text.
 */
export class StylesheetSyntaxError extends ConfigurationError {
  readonly line: number;
  readonly column: number;
  /** The message without the position. */
  readonly reason: string;

  constructor(reason: string, location: SourceLocation) {
    super(`model_stylesheet ${location.line}:${location.column}: ${reason}`, { line: location.line, column: location.column });
    this.reason = reason;
    this.line = location.line;
    this.column = location.column;
  }
}

/** `file:line:col: ` with the parts that are known (nothing when none is). */
function where(file: string | undefined, problem: PipelineProblem): string {
  const parts = [file, problem.line, problem.line === undefined ? undefined : problem.column].filter((part) => part !== undefined && part !== '');
  return parts.length === 0 ? '' : `${parts.join(':')}: `;
}
