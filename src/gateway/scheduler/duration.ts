/**
 * Durations as people and the model write them: whole numbers with units, largest first, e.g.
 * `30m`, `2h`, `1d`, `1h30m`, `1d 12h`.
 */

const unitMs = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1_000 } as const;
type Unit = keyof typeof unitMs;
const units = Object.keys(unitMs) as Unit[];

/** How the accepted form is described in error messages. */
export const durationFormat = 'whole numbers with units d, h, m or s, largest first (e.g. 30m, 2h, 1d, 1h30m)';

/** `text` in milliseconds, or `undefined` when it is not a duration of {@link durationFormat}. */
export function parseDuration(text: string): number | undefined {
  const match = /^(?:(\d+)\s*d)?\s*(?:(\d+)\s*h)?\s*(?:(\d+)\s*m)?\s*(?:(\d+)\s*s)?$/i.exec(text.trim());
  if (!match || match.slice(1).every((group) => group === undefined)) return undefined;
  let total = 0;
  units.forEach((unit, index) => (total += Number(match[index + 1] ?? 0) * unitMs[unit]));
  return Number.isSafeInteger(total) ? total : undefined;
}

/** `ms` in the same form, rounded down to the second: `1h30m`, `5m`, `45s`; `0s` for less. */
export function formatDuration(ms: number): string {
  let rest = Math.max(0, Math.floor(ms / 1000)) * 1000;
  let text = '';
  for (const unit of units) {
    const count = Math.floor(rest / unitMs[unit]);
    if (count > 0) text += `${count}${unit}`;
    rest -= count * unitMs[unit];
  }
  return text || '0s';
}
