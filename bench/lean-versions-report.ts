/**
 * The lean benchmark on two Node.js versions in one run (`OPERATOR_BENCH_LEAN_SECOND_NODE`): each
 * figure of the bare bot and of operator side by side, and the second version's against the
 * first's. No target: the floor of each version is its own bare bot (in `leanReport`); this says
 * what moving from one version to the other changes for both.
 */
import { format, table, type MeasuredOn } from './lean-report.ts';
import type { BenchResult } from './lib.ts';

/** Prints the side-by-side table and returns, for each figure, operator's change from `first` to `second` as a ratio. */
export function leanVersionsReport(first: MeasuredOn, second: MeasuredOn): BenchResult[] {
  const [a, b] = [first.version, second.version];
  const header = ['figure', `bare ${a}`, `bare ${b}`, `${b} / ${a}`, `operator ${a}`, `operator ${b}`, `${b} / ${a}`];
  const cells = first.rows.map((row, index) => {
    const other = second.rows[index]!;
    if (other.figure !== row.figure) throw new Error(`lean: the two runs' figures differ: "${row.figure}" and "${other.figure}"`);
    return [row.figure, `${format(row.bare)} ${row.unit}`, `${format(other.bare)} ${row.unit}`, `${(other.bare / row.bare).toFixed(2)}x`, `${format(row.operator)} ${row.unit}`, `${format(other.operator)} ${row.unit}`, `${(other.operator / row.operator).toFixed(2)}x`];
  });
  process.stdout.write(`Node.js ${a} and ${b} side by side:\n${table(header, cells)}\n\n`);
  return first.rows.map((row, index) => {
    const other = second.rows[index]!;
    return {
      name: `${row.figure}: operator on ${b} against ${a}`,
      value: other.operator / row.operator,
      unit: 'x',
      note: `bare bot ${(other.bare / row.bare).toFixed(2)}x (${format(row.bare)} and ${format(other.bare)} ${row.unit}); operator ${format(row.operator)} and ${format(other.operator)} ${row.unit}`,
    };
  });
}
