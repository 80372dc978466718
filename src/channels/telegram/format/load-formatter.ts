/**
 * The Markdown formatter, imported on first use rather than with the adapter: it pulls in
 * `marked`, some 40 ms that a start-up sending nothing would spend before the gateway is ready.
 * The adapter's `warm` loads it a second after the gateway is up, so a first reply after that
 * does not wait either; a plain one-line reply never loads it (`plain-reply.ts`).
 */
import type * as FormatMessage from './format-message.ts';

/** The formatter module. */
export type Formatter = typeof FormatMessage;

let formatter: Promise<Formatter> | undefined;

/** The formatter, loaded once. */
export function loadFormatter(): Promise<Formatter> {
  return (formatter ??= import('./format-message.ts'));
}
