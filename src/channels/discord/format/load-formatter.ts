/**
 * The Markdown formatter, imported on first use rather than with the adapter: it pulls in
 * `marked`, which a start-up that sends nothing need not load before the gateway is ready. The
 * adapter's `warm` loads it once the gateway is up, so the first reply does not wait either.
 */
import type * as FormatMessage from './format-message.ts';

/** The formatter module. */
export type Formatter = typeof FormatMessage;

let formatter: Promise<Formatter> | undefined;

/** The formatter, loaded once. */
export function loadFormatter(): Promise<Formatter> {
  return (formatter ??= import('./format-message.ts'));
}
