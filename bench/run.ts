/**
 * `npm run bench`: runs every `bench/*.bench.ts` (or the ones named on the command line), prints
 * a table and writes `bench/out/results.json`. Copy the figures into `bench/RESULTS.md` with the
 * machine and date.
 */
import { readdirSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import os from 'node:os';
import type { BenchResult } from './lib.ts';

const here = dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const files = readdirSync(here)
  .filter((name) => name.endsWith('.bench.ts'))
  .filter((name) => wanted.length === 0 || wanted.some((w) => name.includes(w)))
  .sort();

const all: Record<string, BenchResult[]> = {};
let failed = 0;
for (const file of files) {
  const module = (await import(pathToFileURL(join(here, file)).href)) as { default: () => Promise<BenchResult[]> };
  process.stdout.write(`\n## ${file}\n`);
  const results = await module.default();
  all[file] = results;
  for (const r of results) {
    const verdict = r.pass === undefined ? '' : r.pass ? '  ok' : '  MISSED';
    if (r.pass === false) failed++;
    const target = r.target ? `  (target ${r.target})` : '';
    const note = r.note ? `  - ${r.note}` : '';
    process.stdout.write(`${r.name}: ${format(r.value)} ${r.unit}${target}${verdict}${note}\n`);
  }
}

const machine = `${os.cpus()[0]?.model ?? 'unknown cpu'} x${os.cpus().length}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}, ${os.platform()} ${os.release()}`;
mkdirSync(join(here, 'out'), { recursive: true });
writeFileSync(join(here, 'out', 'results.json'), JSON.stringify({ date: new Date().toISOString(), machine, results: all }, null, 2));
process.stdout.write(`\nmachine: ${machine}\n${failed === 0 ? 'all targets met' : `${failed} target(s) missed`}\n`);

function format(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Math.abs(value) >= 100) return value.toFixed(0);
  if (Math.abs(value) >= 1) return value.toFixed(2);
  return value.toFixed(3);
}
