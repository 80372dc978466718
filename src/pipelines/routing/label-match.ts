/**
 * Matching a node's preferred label (a gate's answer) against edge labels, for step 2 of edge
 * selection. Labels are compared trimmed, with runs of whitespace as one space, case-insensitively.
 *
 * Labels may carry an accelerator key, in one of three forms: `[Y] Yes`, `(Y) Yes`, `Y) Yes`
 * (the key is 1 to 3 letters or digits). Such a label is matched by its whole text (`[Y] Yes`), by
 * the text after the key (`Yes`), or by the key alone (`Y`): a terminal user types `y`, a button
 * sends the label. An answer written with an accelerator matches a label without one by its text.
 */
import type { PipelineEdge } from '../types.ts';
import { bestEdge } from './edge-order.ts';

const acceleratorPattern = /^(?:\[([A-Za-z0-9]{1,3})\]|\(([A-Za-z0-9]{1,3})\)|([A-Za-z0-9]{1,3})\))\s*(.*)$/s;

/** A label split into its accelerator key (when it has one) and the text after it. */
export interface LabelParts {
  key?: string;
  text: string;
}

/** Trims, collapses whitespace and lower-cases a label for comparison. */
export function normalizeLabel(label: string): string {
  return label.trim().replace(/\s+/g, ' ').toLowerCase();
}

/** Splits `[Y] Yes`, `(Y) Yes` and `Y) Yes` into key and text; other labels are all text. */
export function splitAccelerator(label: string): LabelParts {
  const match = acceleratorPattern.exec(label.trim());
  if (match === null) return { text: label };
  return { key: match[1] ?? match[2] ?? match[3]!, text: match[4]! };
}

/**
 * The edge whose label the answer names, or `undefined`. Tried in three rounds, the first with a
 * match winning (several matches in a round: by weight, then target): the whole label; the label
 * without its accelerator; the accelerator key. A blank answer matches nothing.
 */
export function matchPreferredLabel(edges: readonly PipelineEdge[], answer: string): PipelineEdge | undefined {
  const whole = normalizeLabel(answer);
  if (whole === '') return undefined;
  const text = normalizeLabel(splitAccelerator(answer).text);
  const rounds: ((edge: PipelineEdge) => boolean)[] = [
    (edge) => normalizeLabel(edge.label) === whole,
    (edge) => text !== '' && normalizeLabel(splitAccelerator(edge.label).text) === text,
    (edge) => {
      const key = splitAccelerator(edge.label).key;
      return key !== undefined && normalizeLabel(key) === whole;
    },
  ];
  for (const matches of rounds) {
    const found = bestEdge(edges.filter(matches));
    if (found !== undefined) return found;
  }
  return undefined;
}
