/**
 * The lean benchmark's report: one row per figure with the bots' values, operator against the
 * bare bot (ratio and difference), the issue's target and whether operator meets it, then the
 * bare bot replaying operator's request and, for the per-turn figures, operator's ratio to it
 * (informative: what operator's own code costs once both send the same request); printed as a
 * compact table, and returned as `BenchResult`s (the bare bot's value, operator's with the
 * target worked out in the run's own units, the replaying bot's).
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
  /** The bare bot sending operator's captured model request. */
  replay: number;
  /** A per-turn figure: operator's ratio to the replaying bot is shown. */
  perTurn?: boolean;
  target?: LeanTarget;
  note?: string;
  /** How operator ran for this figure (compiled dist/ or the sources through tsx). */
  mode: string;
}

/** The rows measured with every bot run by one Node.js binary, and how the bare bots ran. */
export interface MeasuredOn {
  /** `v24.21.0`. */
  version: string;
  rows: LeanRow[];
  bareRan: string;
  replayRan: string;
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

/** operator against the replaying bot, for per-turn figures only. */
function againstReplay(row: LeanRow): string {
  return row.perTurn ? `${(row.operator / row.replay).toFixed(2)}x` : '';
}

/** A figure to three significant places or so (whole numbers from 100 up). */
export function format(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) >= 100) return value.toFixed(0);
  if (Math.abs(value) >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

/**
 * Prints the table (with how the bare bot ran, and what the replaying one sent) and returns the
 * figures as results; with `version` (a run on more than one Node.js), the table is titled with
 * it and every result's name ends with it.
 */
export function leanReport(rows: LeanRow[], bareRan: string, replayRan: string, version?: string): BenchResult[] {
  const modes = [...new Set(rows.map((row) => row.mode))];
  const cells = rows.map((row) => {
    const verdict = judge(row);
    const verdictCells = [verdict?.text ?? '', verdict ? (verdict.pass ? 'ok' : 'MISSED') : ''];
    return [row.figure, `${format(row.bare)} ${row.unit}`, `${format(row.operator)} ${row.unit}`, compare(row), ...verdictCells, `${format(row.replay)} ${row.unit}`, againstReplay(row)];
  });
  const header = ['figure', 'bare bot', 'operator', 'operator vs bare', 'target', '', "bare, operator's request", 'operator vs it'];
  const footer = `operator ran from ${modes.join('; ')}; the bare bot ${bareRan}\nbare, operator's request ("replay" in the notes): ${replayRan}`;
  const title = version ? `\nevery bot on Node.js ${version}:\n` : '\n';
  process.stdout.write(`${title}${table(header, cells)}\n${footer}\n\n`);
  const on = version ? ` (${version})` : '';

  return rows.flatMap((row) => {
    const verdict = judge(row);
    return [
      { name: `${row.figure}: bare bot${on}`, value: row.bare, unit: row.unit },
      {
        name: `${row.figure}: operator${on}`,
        value: row.operator,
        unit: row.unit,
        ...(verdict ? { target: verdict.text, pass: verdict.pass } : {}),
        note: [compare(row), row.note, verdict ? row.mode : undefined].filter(Boolean).join('; '),
      },
      { name: `${row.figure}: bare bot, operator's request${on}`, value: row.replay, unit: row.unit, ...(row.perTurn ? { note: `operator ${againstReplay(row)} it` } : {}) },
    ];
  });
}

/** `header` and `cells` as aligned columns: the first to the left, the others to the right. */
export function table(header: string[], cells: string[][]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...cells.map((line) => line[column]!.length)));
  const line = (values: string[]) => values.map((value, column) => (column === 0 ? value.padEnd(widths[column]!) : value.padStart(widths[column]!))).join('  ').trimEnd();
  return [header, ...cells].map(line).join('\n');
}
