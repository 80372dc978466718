/**
 * How `/status` writes numbers, one way everywhere: counts with thousands separators (`12,345`),
 * money in dollars with four decimals (`$0.0123`, as model calls cost fractions of a cent),
 * durations as the two largest units (`42s`, `3m 05s`, `2h 07m`).
 */

/** `12,345`. */
export function formatCount(count: number): string {
  return Math.round(count).toLocaleString('en-US');
}

/** `12,345 tokens`, `1 token`. */
export function formatTokens(count: number): string {
  return `${formatCount(count)} ${plural(count, 'token')}`;
}

/** `$0.0123`, `$1,234.5000`. */
export function formatCost(dollars: number): string {
  return `$${dollars.toLocaleString('en-US', { minimumFractionDigits: 4, maximumFractionDigits: 4 })}`;
}

/** `<1s`, `42s`, `3m 05s`, `2h 07m`. */
export function formatDuration(milliseconds: number): string {
  const seconds = Math.floor(Math.max(0, milliseconds) / 1000);
  if (seconds < 1) return '<1s';
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${pad(seconds % 60)}s`;
  return `${Math.floor(minutes / 60)}h ${pad(minutes % 60)}m`;
}

/** `word` or `words`, by `count`: `1 call`, `2 calls`. */
export function plural(count: number, word: string): string {
  return count === 1 ? word : `${word}s`;
}

function pad(value: number): string {
  return String(value).padStart(2, '0');
}
