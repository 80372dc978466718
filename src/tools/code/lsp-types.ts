/**
 * The few Language Server Protocol shapes the `code` tool exchanges (LSP 3.17), and the tsserver
 * diagnostic it asks for through the server. Declared here rather than pulling in the whole
 * protocol package for six interfaces.
 */

/** A place in a document: 0-based line, and character in UTF-16 code units. */
export interface LspPosition {
  line: number;
  character: number;
}

/** A span between two positions, end exclusive. */
export interface LspRange {
  start: LspPosition;
  end: LspPosition;
}

/** A span in a document named by its URI. */
export interface LspLocation {
  uri: string;
  range: LspRange;
}

/** What a definition request answers when the client supports links. */
export interface LspLocationLink {
  originSelectionRange?: LspRange;
  targetUri: string;
  targetRange: LspRange;
  /** The name itself, inside {@link targetRange}. */
  targetSelectionRange: LspRange;
}

/** Markdown or plain text. */
export interface LspMarkupContent {
  kind: 'markdown' | 'plaintext';
  value: string;
}

/** The deprecated forms hover contents may still take. */
export type LspMarkedString = string | { language: string; value: string };

/** What a hover request answers. */
export interface LspHover {
  contents: LspMarkupContent | LspMarkedString | LspMarkedString[];
  range?: LspRange;
}

/**
 * A diagnostic as tsserver reports it (`syntacticDiagnosticsSync`, `semanticDiagnosticsSync`):
 * 1-based line, 1-based offset in UTF-16 code units. Other servers' diagnostics are put in this
 * form, with their source and code as a string.
 */
export interface TsDiagnostic {
  start: { line: number; offset: number };
  end: { line: number; offset: number };
  text: string;
  /** tsserver's number (shown `TS2322`), or another server's source and code (`pyflakes`). */
  code?: number | string;
  category: string;
}

/** A diagnostic as a server publishes it (`textDocument/publishDiagnostics`). */
export interface LspDiagnostic {
  range: LspRange;
  /** 1 error, 2 warning, 3 information, 4 hint. */
  severity?: number;
  code?: number | string;
  source?: string;
  message: string;
}
