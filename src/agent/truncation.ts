/**
 * Tool output truncation: what the model sees of a tool result. Stage 1 caps characters, stage 2
 * caps lines of what stage 1 left. The full output stays available to events and logs; only the
 * model-facing copy is cut.
 */

/** `head_tail` keeps both ends and drops the middle; `tail` keeps only the end. */
export type TruncationMode = 'head_tail' | 'tail';

/** Per-tool limits, keyed by tool name. */
export interface TruncationConfig {
  /** Stage 1: most characters kept. */
  charLimits: Record<string, number>;
  /** Which part stages 1 and 2 keep. */
  modes: Record<string, TruncationMode>;
  /** Stage 2: most lines kept; tools without an entry have no line limit. */
  lineLimits: Record<string, number>;
}

/** Character limit of tools that have none configured. */
export const fallbackCharLimit = 30_000;
/** Mode of tools that have none configured. */
export const fallbackTruncationMode: TruncationMode = 'head_tail';

/** The spec's defaults for the built-in tools. */
export const defaultTruncationConfig: Readonly<TruncationConfig> = Object.freeze({
  charLimits: Object.freeze({
    read_file: 50_000,
    shell: 30_000,
    grep: 20_000,
    glob: 20_000,
    list_dir: 20_000,
    spawn_agent: 20_000,
    edit_file: 10_000,
    apply_patch: 10_000,
    write_file: 1_000,
  }),
  modes: Object.freeze({
    read_file: 'head_tail',
    shell: 'head_tail',
    grep: 'tail',
    glob: 'tail',
    list_dir: 'tail',
    spawn_agent: 'head_tail',
    edit_file: 'tail',
    apply_patch: 'tail',
    write_file: 'tail',
  }),
  lineLimits: Object.freeze({ shell: 256, grep: 200, glob: 500, list_dir: 500 }),
}) as Readonly<TruncationConfig>;

/** The defaults with `partial`'s entries laid over them, tool by tool. */
export function mergeTruncationConfig(partial: Partial<TruncationConfig> = {}): TruncationConfig {
  return {
    charLimits: { ...defaultTruncationConfig.charLimits, ...partial.charLimits },
    modes: { ...defaultTruncationConfig.modes, ...partial.modes },
    lineLimits: { ...defaultTruncationConfig.lineLimits, ...partial.lineLimits },
  };
}

/** The model-facing text of a tool output, and whether anything was removed. */
export interface TruncationResult {
  text: string;
  truncated: boolean;
}

/**
 * Cuts a tool's output to its configured limits, leaving a warning marker where text was removed.
 * Stage 2 counts the lines of stage 1's result, so a stage 1 marker counts as lines there (and is
 * cut with them when it falls in the removed part).
 *
 * @example
 * truncateOutput('write_file', 'x'.repeat(1500)).text
 * // '[WARNING: Tool output was truncated. First 500 characters were removed.]\n\nxxx…'
 */
export function truncateOutput(
  toolName: string,
  output: string,
  config: Readonly<TruncationConfig> = defaultTruncationConfig,
): TruncationResult {
  const mode = config.modes[toolName] ?? fallbackTruncationMode;
  const charLimit = config.charLimits[toolName] ?? fallbackCharLimit;
  const lineLimit = config.lineLimits[toolName];
  let text = output;
  let truncated = false;
  if (text.length > charLimit) {
    text = mode === 'tail' ? truncateCharsTail(text, charLimit) : truncateCharsHeadTail(text, charLimit);
    truncated = true;
  }
  if (lineLimit !== undefined) {
    const lines = truncateLines(text, lineLimit, mode);
    if (lines !== undefined) {
      text = lines;
      truncated = true;
    }
  }
  return { text, truncated };
}

function truncateCharsHeadTail(text: string, limit: number): string {
  const headEnd = avoidSplitBefore(text, Math.floor(limit / 2));
  const tailStart = avoidSplitAfter(text, text.length - (limit - Math.floor(limit / 2)));
  const removed = tailStart - headEnd;
  return (
    `${text.slice(0, headEnd)}\n\n[WARNING: Tool output was truncated. ${removed} characters were removed from the middle.]\n\n` +
    text.slice(tailStart)
  );
}

function truncateCharsTail(text: string, limit: number): string {
  const start = avoidSplitAfter(text, text.length - limit);
  return `[WARNING: Tool output was truncated. First ${start} characters were removed.]\n\n${text.slice(start)}`;
}

/** Moves a cut at `index` (end of the kept head) back so it does not split a surrogate pair. */
function avoidSplitBefore(text: string, index: number): number {
  return index > 0 && isHighSurrogate(text.charCodeAt(index - 1)) ? index - 1 : index;
}

/** Moves a cut at `index` (start of the kept tail) forward so it does not split a surrogate pair. */
function avoidSplitAfter(text: string, index: number): number {
  return index > 0 && isHighSurrogate(text.charCodeAt(index - 1)) ? index + 1 : index;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * Stage 2. A trailing newline ends the last line rather than starting an empty one. Returns
 * undefined when the text is within the limit.
 */
function truncateLines(text: string, limit: number, mode: TruncationMode): string | undefined {
  const trailingNewline = text.endsWith('\n');
  const lines = (trailingNewline ? text.slice(0, -1) : text).split('\n');
  if (lines.length <= limit) return undefined;
  const ending = trailingNewline ? '\n' : '';
  if (mode === 'tail') {
    const removed = lines.length - limit;
    const kept = limit > 0 ? lines.slice(-limit).join('\n') + ending : '';
    return `[WARNING: Tool output was truncated. First ${removed} lines were removed.]\n\n${kept}`;
  }
  const headCount = Math.floor(limit / 2);
  const tailCount = limit - headCount;
  const removed = lines.length - limit;
  const head = lines.slice(0, headCount).join('\n');
  const tail = tailCount > 0 ? lines.slice(-tailCount).join('\n') + ending : '';
  return `${head}\n\n[WARNING: Tool output was truncated. ${removed} lines were removed from the middle.]\n\n${tail}`;
}
