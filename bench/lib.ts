/**
 * Small helpers shared by the benchmarks. Figures are ratios or differences against a floor
 * measured in the same run, because this machine is noisy.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** One figure a benchmark reports. */
export interface BenchResult {
  /** Short name, e.g. `agent overhead per turn (median)`. */
  name: string;
  value: number;
  unit: string;
  /** Human-readable target, e.g. `<= 1 ms`. */
  target?: string;
  /** Whether `value` meets the target (omitted when there is none). */
  pass?: boolean;
  note?: string;
}

/** The value at quantile `q` (0..1) of `samples` (copied and sorted). */
export function quantile(samples: number[], q: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index]!;
}

/** Median of `samples`. */
export function median(samples: number[]): number {
  return quantile(samples, 0.5);
}

/** Milliseconds from a `process.hrtime.bigint()` start. */
export function elapsedMs(start: bigint): number {
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** Times `fn` `count` times after `warmup` untimed runs; returns each duration in ms. */
export async function sample(count: number, fn: () => Promise<unknown> | unknown, warmup = Math.min(50, count)): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = process.hrtime.bigint();
    await fn();
    samples.push(elapsedMs(start));
  }
  return samples;
}

/** Runs the garbage collector when node was started with --expose-gc. */
export function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    gc();
    gc();
  }
}

/**
 * Where benchmarks that run the gateway put its OPERATOR_HOME: `OPERATOR_BENCH_HOME`, else the
 * system temp folder. Creating a file on this machine's disk costs anywhere from 0.03 to over
 * 1 ms, varying between runs and folders; {@link fileCreateMs} reports what it cost in the run.
 */
export function benchHomeRoot(): string {
  const root = process.env.OPERATOR_BENCH_HOME?.trim() || tmpdir();
  mkdirSync(root, { recursive: true });
  return root;
}

/** A new, empty folder under {@link benchHomeRoot}; remove it when done. */
export function benchHome(prefix: string): string {
  return mkdtempSync(join(benchHomeRoot(), prefix));
}

/** Median time to create (and write a few bytes to) one new file in a fresh folder under `root`, in ms. */
export function fileCreateMs(root: string, files = 200): number {
  const folder = mkdtempSync(join(root, 'operator-bench-create-'));
  try {
    return median(
      Array.from({ length: files }, (_, index) => {
        const start = process.hrtime.bigint();
        writeFileSync(join(folder, `f${index}`), '{}', { flag: 'wx' });
        return elapsedMs(start);
      }),
    );
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
