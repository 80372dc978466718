/**
 * YAML frontmatter: a Markdown file that starts with a `---` line, YAML, and a closing `---` (or
 * `...`) line. The YAML is parsed by the `yaml` package; this file only finds the fences and maps
 * the parser's positions back to lines of the whole file, so a person is told where to look.
 * Plain `key: value` lines are read without it (the parser loads only for anything else).
 */
import { yamlLibrary } from './yaml-library.ts';

/** Parsed frontmatter and the Markdown after it. */
export interface Frontmatter {
  /** The YAML mapping; `{}` when the file has no frontmatter or an empty one. */
  data: Record<string, unknown>;
  /** Everything after the closing fence (the whole text when there is no frontmatter). */
  body: string;
  /** 1-based line in the file of each top-level key. */
  keyLines: Record<string, number>;
}

/** Why frontmatter could not be parsed. */
export interface FrontmatterError {
  error: string;
  /** 1-based line in the file, when known. */
  line?: number;
}

const fence = /^---[ \t]*$/;
const closingFence = /^(?:---|\.\.\.)[ \t]*$/;

/** Whether `text` starts with a frontmatter fence (`---` on the first line). */
export function hasFrontmatter(text: string): boolean {
  return fence.test(firstLine(text));
}

/**
 * Splits `text` into its YAML frontmatter and body. Text without a leading `---` line has no
 * frontmatter: `data` is `{}` and `body` is the whole text. Never throws.
 *
 * @example
 * parseFrontmatter('---\nname: deploy\n---\nSteps...\n');
 * // { data: { name: 'deploy' }, body: 'Steps...\n', keyLines: { name: 2 } }
 * parseFrontmatter('---\nname: [\n---\n');
 * // { error: 'Flow sequence in block collection must be ...', line: 3 }
 */
export function parseFrontmatter(text: string): Frontmatter | FrontmatterError {
  if (!hasFrontmatter(text)) return { data: {}, body: text, keyLines: {} };
  const yamlStart = text.indexOf('\n') + 1;
  if (yamlStart === 0) return { error: 'the frontmatter is not closed: no `---` line after the first one', line: 1 };
  const closing = findClosingFence(text, yamlStart);
  if (closing === undefined) {
    return { error: 'the frontmatter is not closed: no `---` line after the first one', line: 1 };
  }
  const source = text.slice(yamlStart, closing.start);
  // The YAML starts on line 2 of the file.
  const fileLine = (offset: number): number => 2 + countNewlines(source, Math.min(offset, source.length));
  const simple = parseSimpleMapping(source, fileLine);
  if (simple) return { data: simple.data, body: text.slice(closing.end), keyLines: simple.keyLines };
  const { isMap, parseDocument } = yamlLibrary();
  const document = parseDocument(source, { prettyErrors: false, uniqueKeys: true });
  const [first] = document.errors;
  if (first) return { error: first.message, line: fileLine(first.pos[0]) };
  if (document.contents === null) return { data: {}, body: text.slice(closing.end), keyLines: {} };
  if (!isMap(document.contents)) {
    return { error: 'the frontmatter must be a YAML mapping of `key: value` lines', line: 2 };
  }
  const keyLines: Record<string, number> = {};
  for (const pair of document.contents.items) {
    const key = pair.key as { value?: unknown; range?: [number, number, number] } | null;
    if (key?.range && key.value !== undefined) keyLines[String(key.value)] = fileLine(key.range[0]);
  }
  let data: unknown;
  try {
    data = document.toJS({ maxAliasCount: 100 });
  } catch (error) {
    // Alias expansion beyond the limit: a "billion laughs" file.
    return { error: error instanceof Error ? error.message : String(error), line: 2 };
  }
  return { data: data as Record<string, unknown>, body: text.slice(closing.end), keyLines };
}

const simpleLine = /^([A-Za-z][A-Za-z0-9_-]*):[ \t]+(\S.*?)[ \t]*$/;
const plainScalar = /^[A-Za-z(][^:#]*$/;

/**
 * Fast path for the frontmatter nearly every skill has: one `key: plain text` per line. The YAML
 * parser costs ~50-100 µs a file, which with dozens of skills dominated a profile's load; these
 * lines mean the same in YAML as read here. Anything else (quotes, lists, numbers, comments,
 * `key: value` inside a value, blank or indented lines, repeated keys) returns undefined and goes
 * to the YAML parser.
 */
function parseSimpleMapping(source: string, fileLine: (offset: number) => number): { data: Record<string, unknown>; keyLines: Record<string, number> } | undefined {
  const data: Record<string, unknown> = {};
  const keyLines: Record<string, number> = {};
  let offset = 0;
  const lines = source.split('\n');
  if (lines.at(-1) === '') lines.pop();
  if (lines.length === 0) return undefined;
  for (const line of lines) {
    const match = simpleLine.exec(line.replace(/\r$/, ''));
    if (!match) return undefined;
    const [, key, value] = match as unknown as [string, string, string];
    if (Object.hasOwn(data, key) || !plainScalar.test(value)) return undefined;
    // Plain scalars YAML would read as something other than a string.
    const lower = value.toLowerCase();
    if (lower === 'true' || lower === 'false') data[key] = lower === 'true';
    else if (['null', 'yes', 'no', 'on', 'off', '~'].includes(lower)) return undefined;
    else data[key] = value;
    keyLines[key] = fileLine(offset);
    offset += line.length + 1;
  }
  return { data, keyLines };
}

function firstLine(text: string): string {
  const end = text.indexOf('\n');
  return (end === -1 ? text : text.slice(0, end)).replace(/\r$/, '');
}

/** The closing fence line at or after `from`: where it starts and where the body after it starts. */
function findClosingFence(text: string, from: number): { start: number; end: number } | undefined {
  let start = from;
  while (start < text.length) {
    const newline = text.indexOf('\n', start);
    const lineEnd = newline === -1 ? text.length : newline;
    if (closingFence.test(text.slice(start, lineEnd).replace(/\r$/, ''))) {
      return { start, end: newline === -1 ? text.length : newline + 1 };
    }
    if (newline === -1) return undefined;
    start = newline + 1;
  }
  return undefined;
}

function countNewlines(text: string, end: number): number {
  let count = 0;
  for (let index = text.indexOf('\n'); index !== -1 && index < end; index = text.indexOf('\n', index + 1)) count++;
  return count;
}
