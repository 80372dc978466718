/**
 * The lean benchmark's report: one row per figure with both bots' values, operator against the
 * bare bot (ratio and difference), the issue's target and whether operator meets it; printed as
 * a compact table, and returned as `BenchResult`s (the bare bot's value, then operator's with the
 * target worked out in the run's own units).
 */
import type { BenchResult } from './lib.ts';

/** What operator's value must satisfy. */
export type LeanTarget =
  /** operator <= limit x bare (or >= with `atLeast`). */
  | { kind: 'ratio'; limit: number; atLeast?: boolean }
  /** operator <= bare + limit. */
  | { kind: 'difference'; limit: number }
  /** operator <= limit. */
  | { kind: 'absolute'; limit: number };

/** One figure, measured for both bots. */
export interface LeanRow {
  figure: string;
  unit: string;
  bare: number;
  operator: number;
  target?: LeanTarget;
  note?: string;
  /** How operator ran for this figure (compiled dist/ or the sources through tsx). */
  mode: string;
}

/** Whether operator meets the row's target, and the target in words with its threshold in this run. */
function judge(row: LeanRow): { text: string; pass: boolean } | undefined {
  const { target, bare, operator, unit } = row;
  if (!target) return undefined;
  if (target.kind === 'ratio') {
    const threshold = target.limit * bare;
    const text = `${target.atLeast ? '>=' : '<='} ${target.limit}x bare (${format(threshold)} ${unit})`;
    return { text, pass: target.atLeast ? operator >= threshold : operator <= threshold };
  }
  if (target.kind === 'difference') return { text: `<= bare + ${target.limit} ${unit} (${format(bare + target.limit)} ${unit})`, pass: operator <= bare + target.limit };
  return { text: `<= ${target.limit} ${unit}`, pass: operator <= target.limit };
}

function compare(row: LeanRow): string {
  const difference = row.operator - row.bare;
  return `${(row.operator / row.bare).toFixed(2)}x, ${difference >= 0 ? '+' : ''}${format(difference)} ${row.unit}`;
}

function format(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) >= 100) return value.toFixed(0);
  if (Math.abs(value) >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

/** Prints the table (with how the bare bot ran) and returns the figures as results. */
export function leanReport(rows: LeanRow[], bareRan: string): BenchResult[] {
  const modes = [...new Set(rows.map((row) => row.mode))];
  const cells = rows.map((row) => {
    const verdict = judge(row);
    return [row.figure, `${format(row.bare)} ${row.unit}`, `${format(row.operator)} ${row.unit}`, compare(row), verdict?.text ?? '', verdict ? (verdict.pass ? 'ok' : 'MISSED') : ''];
  });
  const header = ['figure', 'bare bot', 'operator', 'operator vs bare', 'target', ''];
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((line) => line[column]!.length)));
  const line = (values: string[]) => values.map((value, column) => (column === 0 ? value.padEnd(widths[column]!) : value.padStart(widths[column]!))).join('  ').trimEnd();
  process.stdout.write(`\n${line(header)}\n${cells.map(line).join('\n')}\noperator ran from ${modes.join('; ')}; the bare bot ${bareRan}\n\n`);

  return rows.flatMap((row) => {
    const verdict = judge(row);
    return [
      { name: `${row.figure}: bare bot`, value: row.bare, unit: row.unit },
      {
        name: `${row.figure}: operator`,
        value: row.operator,
        unit: row.unit,
        ...(verdict ? { target: verdict.text, pass: verdict.pass } : {}),
        note: [compare(row), row.note, verdict ? row.mode : undefined].filter(Boolean).join('; '),
      },
    ];
  });
}
