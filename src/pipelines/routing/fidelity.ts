/**
 * Context fidelity (spec section 2, "Fidelity Values"): which mode applies to a node, and what
 * each mode does to the context data the node is given.
 */
import type { Fidelity, Pipeline, PipelineEdge, PipelineNode } from '../types.ts';
import { fidelityModes } from '../types.ts';

/** `truncate`: strings longer than this many characters are cut to it. */
export const truncateLimit = 500;
/** Appended to a string `truncate` cut. */
export const truncatedMarker = ' [truncated]';
/**
 * `compact`: strings longer than this many characters are replaced by a `[N bytes]` placeholder.
 * 2,000 characters (about a page, some 500 tokens) keeps the ordinary values (names, statuses,
 * short answers, error lines) and drops whole documents, logs and long answers.
 */
export const compactLimit = 2_000;
/** The mode when neither edge, node nor graph names a valid one. */
export const defaultFidelity: Fidelity = 'compact';

/**
 * The fidelity a value names, or `undefined` when it names none. Compared trimmed and
 * case-insensitively (`Full`, ` summary:HIGH ` are accepted), so validation and the engine agree
 * when both use this.
 */
export function asFidelity(value: string | undefined): Fidelity | undefined {
  if (value === undefined) return undefined;
  const normalized = value.trim().toLowerCase();
  return fidelityModes.find((mode) => mode === normalized);
}

/**
 * The fidelity for running `node` reached through `edge`: the edge's `fidelity`, else the node's,
 * else the graph's `default_fidelity`, else `compact`. A level whose value is not a valid mode is
 * skipped (validation warns about it), not an error.
 */
export function resolveFidelity(edge: PipelineEdge | undefined, node: PipelineNode | undefined, pipeline: Pipeline): Fidelity {
  const graphDefault = pipeline.defaultFidelity ?? pipeline.attributes['default_fidelity'];
  for (const value of [edge?.fidelity, node?.fidelity, graphDefault]) {
    const mode = asFidelity(value);
    if (mode !== undefined) return mode;
  }
  return defaultFidelity;
}

/** The context keys `summary:*` sets, describing the mode that was applied. */
const summaryKeys = ['_needs_summarization', '_summary_detail'] as const;

/**
 * The context data as a node in `mode` sees it; `data` is never changed (a new object is returned,
 * nested arrays and plain objects that were transformed are copies too).
 *
 * - `full`: everything as is.
 * - `truncate`: every string longer than 500 characters, at any depth in arrays and plain objects,
 *   is cut to 500 and ends with ` [truncated]`.
 * - `compact`: every string longer than 2,000 characters, at any depth, becomes `[N bytes]` (N its
 *   UTF-8 size).
 * - `summary:low|medium|high`: everything as is, plus `_needs_summarization: true` and
 *   `_summary_detail: 'low'|'medium'|'high'` (the summarizing is the engine's).
 *
 * The two `summary` keys describe the mode applied, so the other modes leave them out even when
 * `data` has them from an earlier node: the result is meant to replace the node's view, not to be
 * merged into it.
 */
export function applyFidelity(mode: Fidelity, data: Readonly<Record<string, unknown>>): Record<string, unknown> {
  switch (mode) {
    case 'full':
      return withoutSummaryKeys(data);
    case 'truncate':
      return mapStrings(withoutSummaryKeys(data), truncateString) as Record<string, unknown>;
    case 'compact':
      return mapStrings(withoutSummaryKeys(data), compactString) as Record<string, unknown>;
    case 'summary:low':
    case 'summary:medium':
    case 'summary:high':
      return { ...data, _needs_summarization: true, _summary_detail: mode.slice('summary:'.length) };
  }
}

function withoutSummaryKeys(data: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const copy = { ...data };
  for (const key of summaryKeys) delete copy[key];
  return copy;
}

function truncateString(value: string): string {
  if (value.length <= truncateLimit) return value;
  let end = truncateLimit;
  // Do not cut a surrogate pair in half (an emoji would become an invalid character).
  const last = value.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return value.slice(0, end) + truncatedMarker;
}

function compactString(value: string): string {
  return value.length <= compactLimit ? value : `[${Buffer.byteLength(value, 'utf8')} bytes]`;
}

/**
 * `value` with `transform` applied to every string in it, descending into arrays and plain
 * objects (copied, never changed). Other objects (dates, maps, class instances) are kept as they
 * are; a reference back to an enclosing value (a cycle) is kept too, rather than recursing forever.
 */
function mapStrings(value: unknown, transform: (text: string) => string, enclosing: Set<object> = new Set()): unknown {
  if (typeof value === 'string') return transform(value);
  if (typeof value !== 'object' || value === null || enclosing.has(value)) return value;
  if (Array.isArray(value)) {
    enclosing.add(value);
    const mapped = value.map((item: unknown) => mapStrings(item, transform, enclosing));
    enclosing.delete(value);
    return mapped;
  }
  const prototype = Object.getPrototypeOf(value) as unknown;
  if (prototype !== Object.prototype && prototype !== null) return value;
  enclosing.add(value);
  // fromEntries defines own properties, so a `__proto__` key stays a key.
  const mapped = Object.fromEntries(Object.entries(value).map(([key, item]) => [key, mapStrings(item, transform, enclosing)]));
  enclosing.delete(value);
  return mapped;
}
