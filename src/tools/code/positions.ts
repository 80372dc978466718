/**
 * Positions as people give them and as the language server counts them. People (and read_file's
 * numbered lines) count lines and columns from 1, a column in characters; LSP counts both from 0,
 * the column in UTF-16 code units (tsserver from 1, also in UTF-16 units). The two differ only
 * after a character outside the Basic Multilingual Plane (an emoji, say) on the line.
 */
import type { LspPosition } from './lsp-types.ts';

/** The lines of `text`, without their line ends. */
export function linesOf(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

/** Where in `lines` the model asked about, or why that place is not in the file. */
export type PositionLookup = { position: LspPosition } | { error: string };

/**
 * The LSP position of 1-based `line` and either 1-based `column` or the name `symbol` on that
 * line (with both, the occurrence of `symbol` nearest the column). `displayPath` names the file
 * in errors.
 */
export function findPosition(lines: readonly string[], displayPath: string, line: number, column?: number, symbol?: string): PositionLookup {
  const text = lines[line - 1];
  if (text === undefined) return { error: `line ${line} is past the end of ${displayPath} (${lines.length} lines)` };
  if (symbol === undefined) {
    const characters = [...text];
    const wanted = column ?? 1;
    if (wanted > characters.length + 1) return { error: `column ${wanted} is past the end of line ${line} of ${displayPath} (${characters.length} characters): ${text.trim()}` };
    return { position: { line: line - 1, character: characters.slice(0, wanted - 1).join('').length } };
  }
  const starts = occurrences(text, symbol);
  if (starts.length === 0) return { error: `\`${symbol}\` is not on line ${line} of ${displayPath}: ${text.trim()}` };
  const near = column === undefined ? 0 : [...text].slice(0, column - 1).join('').length;
  const start = starts.reduce((best, index) => (Math.abs(index - near) < Math.abs(best - near) ? index : best));
  return { position: { line: line - 1, character: start } };
}

/** The 1-based character column of a UTF-16 offset into `text`. */
export function columnOf(text: string | undefined, character: number): number {
  if (text === undefined) return character + 1;
  return [...text.slice(0, character)].length + 1;
}

const identifierPart = /[\p{ID_Continue}$\u200c\u200d]/u;

/**
 * UTF-16 offsets where `symbol` stands on its own in `text`: an identifier not inside a longer
 * one (`add` is not found in `adder`); other text wherever it appears.
 */
function occurrences(text: string, symbol: string): number[] {
  const found: number[] = [];
  if (symbol === '') return found;
  const wordStart = identifierPart.test(symbol[0]!);
  const wordEnd = identifierPart.test(symbol[symbol.length - 1]!);
  for (let index = text.indexOf(symbol); index !== -1; index = text.indexOf(symbol, index + 1)) {
    const before = text[index - 1];
    const after = text[index + symbol.length];
    if (wordStart && before !== undefined && identifierPart.test(before)) continue;
    if (wordEnd && after !== undefined && identifierPart.test(after)) continue;
    found.push(index);
  }
  return found;
}
