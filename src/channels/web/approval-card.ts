/**
 * A tool call waiting for approval, laid out for the web chat's card: the tool's name, why it
 * asks, then the arguments one per line as a person reads them. A shell command is shown as the
 * command, a path as a path, a multi-line text (a patch, a file's content) as a block of code
 * cut to its first lines; nested values are named by their path (`options.recursive`). Never raw
 * JSON: the page writes each line as text.
 */
import type { ApprovalPrompt } from '../types.ts';

/** How the page shows a line's value. */
export type ApprovalLineKind = 'command' | 'path' | 'code' | 'text';

/** One argument (or one item of a list argument) on the card. */
export interface ApprovalLine {
  /** The argument's name; empty for the further items of a list. */
  label: string;
  value: string;
  /** `command` and `code`: a block of code; `path`: inline code; `text`: plain text. */
  kind: ApprovalLineKind;
}

/** What the card shows. */
export interface WebApprovalCard {
  tool: string;
  reason: string;
  lines: ApprovalLine[];
  /** Arguments (or items) left out past the card's length; 0 when all are shown. */
  omitted: number;
}

/** Lines on one card: a call with more arguments than this is rare, and the rest is counted. */
const maxLines = 24;
/** Lines of one multi-line value shown before it is cut. */
const maxValueLines = 16;
/** Characters of one value shown before it is cut. */
const maxValueChars = 2_000;
/** How deep nested objects are followed; deeper ones are summarised. */
const maxDepth = 3;

const commandNames = /^(command|cmd|script|shell|bash)$/i;
const pathNames = /(^|_|\b)(path|paths|file|files|filename|dir|directory|folder|cwd|root|target|destination|source|url|uri)$|Path$|Dir$|File$/i;

/** The first lines and characters of `text`, saying how much was left out. */
function cut(text: string): string {
  const lines = text.split('\n');
  let shown = lines.length > maxValueLines ? lines.slice(0, maxValueLines).join('\n') : text;
  if (shown.length > maxValueChars) shown = shown.slice(0, maxValueChars);
  if (shown === text) return text;
  const more = lines.length - shown.split('\n').length;
  return `${shown}\n… ${more > 0 ? `${more} more line${more === 1 ? '' : 's'}` : 'cut short'}`;
}

function kindOf(name: string, value: string): ApprovalLineKind {
  if (commandNames.test(name)) return 'command';
  if (pathNames.test(name) && !value.includes('\n')) return 'path';
  return value.includes('\n') ? 'code' : 'text';
}

function primitive(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value === null) return 'null';
  return undefined;
}

/** The lines of one argument: `label` names it from the top (`options.recursive`), `key` is its own name. */
function linesOf(label: string, key: string, value: unknown, depth: number): ApprovalLine[] {
  const simple = primitive(value);
  if (simple !== undefined) return [{ label, value: cut(simple), kind: typeof value === 'string' ? kindOf(key, simple) : 'text' }];
  if (Array.isArray(value)) {
    if (value.length === 0) return [{ label, value: '(none)', kind: 'text' }];
    const items = value.map(primitive);
    if (items.every((item) => item !== undefined)) {
      // A list of paths or commands: one per line; any other list on one line.
      const kind = kindOf(key, '');
      if (kind === 'path' || kind === 'command') return items.map((item, index) => ({ label: index === 0 ? label : '', value: cut(item!), kind }));
      return [{ label, value: cut(items.join(', ')), kind: 'text' }];
    }
    if (depth >= maxDepth) return [{ label, value: `(${value.length} items)`, kind: 'text' }];
    return value.flatMap((item, index) => linesOf(`${label} ${index + 1}`, key, item, depth + 1));
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return [{ label, value: '(empty)', kind: 'text' }];
    if (depth >= maxDepth) return [{ label, value: `(${entries.length} fields)`, kind: 'text' }];
    return entries.flatMap(([name, inner]) => linesOf(`${label}.${name}`, name, inner, depth + 1));
  }
  return [{ label, value: String(value), kind: 'text' }];
}

/**
 * Lays out `prompt` for the card.
 *
 * @example
 * approvalCard({ tool: 'shell', reason: 'runs a command', arguments: { command: 'ls -la', timeout_ms: 5000 } });
 * // { tool: 'shell', reason: 'runs a command', omitted: 0, lines: [
 * //   { label: 'command', value: 'ls -la', kind: 'command' }, { label: 'timeout_ms', value: '5000', kind: 'text' } ] }
 */
export function approvalCard(prompt: ApprovalPrompt): WebApprovalCard {
  const lines = Object.entries(prompt.arguments).flatMap(([name, value]) => linesOf(name, name, value, 1));
  return { tool: prompt.tool, reason: prompt.reason, lines: lines.slice(0, maxLines), omitted: Math.max(0, lines.length - maxLines) };
}
