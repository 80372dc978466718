/**
 * The `code` tool's answers as compact text: locations as `path:line:col` with their source line,
 * hover text as the server's markdown, diagnostics as `path:line:col severity TSxxxx message`.
 * Lines and columns count from 1, in characters, as read_file and people count them.
 */
import { fileURLToPath } from 'node:url';
import { columnOf, linesOf } from './positions.ts';
import type { LspHover, LspLocation, LspLocationLink, LspMarkedString, TsDiagnostic } from './lsp-types.ts';
import type { Visibility } from './code-workspace.ts';

/** Longest source line shown after a location, in characters. */
const maxSourceLine = 200;
/**
 * Longest diagnostic message, in characters: a type error about a large type can run to
 * thousands, and the list must stay within what the engine passes on uncut (30,000).
 */
const maxMessage = 400;
/** Longest hover text, in characters. */
export const maxHoverChars = 6_000;

/** What formatting locations needs to know of the call. */
export interface LocationView {
  /** How a real path is shown: relative to the working directory inside it, else absolute. */
  display(file: string): string;
  visibility(file: string): Promise<Visibility>;
  /** The text of a file inside the workspace, or undefined when it cannot be read. */
  text(file: string): Promise<string | undefined>;
}

/** A definition answer in any of its forms, as plain locations (the name's own span for links). */
export function asLocations(answer: LspLocation | LspLocation[] | LspLocationLink[] | null | undefined): LspLocation[] {
  if (!answer) return [];
  const list = Array.isArray(answer) ? answer : [answer];
  return list.map((item) => ('targetUri' in item ? { uri: item.targetUri, range: item.targetSelectionRange } : item));
}

/**
 * One line per location, at most `max`, then how many more there are. A location inside the
 * workspace comes with its source line; one outside it with its path only; one in a place hidden
 * from the turn is counted, never named.
 */
export async function formatLocations(locations: readonly LspLocation[], view: LocationView, max: number): Promise<string[]> {
  const lines: string[] = [];
  let hidden = 0;
  let more = 0;
  for (const location of locations) {
    const file = filePathOf(location.uri);
    const { line, character } = location.range.start;
    if (file === undefined) {
      if (lines.length < max) lines.push(`${location.uri}:${line + 1}:${character + 1}`);
      else more++;
      continue;
    }
    const visibility = await view.visibility(file);
    if (visibility === 'hidden') {
      hidden++;
      continue;
    }
    if (lines.length >= max) {
      more++;
      continue;
    }
    if (visibility === 'outside') {
      lines.push(`${view.display(file)}:${line + 1}:${character + 1} (outside the workspace)`);
      continue;
    }
    const text = await view.text(file);
    const source = text === undefined ? undefined : linesOf(text)[line];
    const place = `${view.display(file)}:${line + 1}:${columnOf(source, character)}`;
    lines.push(source === undefined || source.trim() === '' ? place : `${place}  ${clip(source.trim(), maxSourceLine)}`);
  }
  if (more > 0) lines.push(`... and ${more} more`);
  if (hidden > 0) lines.push(`(${hidden} more in places this conversation cannot see)`);
  return lines;
}

/** The hover's text as markdown, or an empty string when it has none. */
export function hoverText(hover: LspHover | null | undefined): string {
  if (!hover) return '';
  const parts = Array.isArray(hover.contents) ? hover.contents : [hover.contents];
  const text = parts
    .map((part: LspMarkedString | { kind: string; value: string }) => {
      if (typeof part === 'string') return part;
      if ('language' in part) return `\`\`\`${part.language}\n${part.value}\n\`\`\``;
      return part.value;
    })
    .join('\n\n')
    .trim();
  return text.length > maxHoverChars ? `${text.slice(0, maxHoverChars)}\n[... cut: ${text.length - maxHoverChars} more characters]` : text;
}

/**
 * The diagnostics of the file `display` whose text is `text`, in file order, one per line: at most
 * `max`, then how many more there are.
 */
export function formatDiagnostics(diagnostics: readonly TsDiagnostic[], display: string, text: string, max: number): string[] {
  const lines = linesOf(text);
  const sorted = [...diagnostics].sort((a, b) => a.start.line - b.start.line || a.start.offset - b.start.offset);
  const shown = sorted.slice(0, max).map((diagnostic) => {
    const { line, offset } = diagnostic.start;
    const column = columnOf(lines[line - 1], offset - 1);
    const code = diagnostic.code === undefined ? '' : typeof diagnostic.code === 'number' ? ` TS${diagnostic.code}` : ` ${diagnostic.code}`;
    const message = clip(diagnostic.text.replace(/\s*\n\s*/g, ' ').trim(), maxMessage);
    return `${display}:${line}:${column} ${severityOf(diagnostic.category)}${code} ${message}`;
  });
  if (sorted.length > max) shown.push(`... and ${sorted.length - max} more`);
  return shown;
}

function severityOf(category: string): string {
  return category === 'suggestion' ? 'hint' : category === 'message' ? 'info' : category;
}

/** The path of a `file:` URI, or undefined for any other scheme. */
function filePathOf(uri: string): string | undefined {
  if (!uri.startsWith('file:')) return undefined;
  try {
    return fileURLToPath(uri);
  } catch {
    return undefined;
  }
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
