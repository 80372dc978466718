/**
 * Shell change tracking: what finding a command's file changes costs in a workspace of 1,000
 * small files (20 folders of 50 source-like files of about 1.5 KB): the snapshot before the
 * command and the compare after it, against a floor measured in the same run (one bare
 * `readdir` walk of the same tree, which the snapshot and the compare each make once) and a
 * second floor (reading every file once, as the snapshot must).
 *
 * - settled: the files were last written long ago (the common case), so the compare reads none;
 * - fresh: every file was written within the last 2 s, the window in which a change could hide
 *   behind an unchanged mtime, so the compare reads every file again (the worst case);
 * - the whole `shell` call of `true` with a change log and without, alternating (what a person
 *   waits for).
 *
 * This machine is noisy (2 cores shared): compare the figures with the floors of the same run.
 */
import { mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync, type Dirent } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStore } from '../src/store/unstorage-store.ts';
import { createShellTool } from '../src/tools/builtin/shell.ts';
import { ChangeLog } from '../src/tools/changes/change-log.ts';
import { WorkspaceSnapshot } from '../src/tools/changes/workspace-snapshot.ts';
import type { ToolContext } from '../src/tools/tool.ts';
import { median, sample, type BenchResult } from './lib.ts';

const folders = 20;
const filesPerFolder = 50;

/** About 1.5 KB of source-like text, different per file. */
const fileContent = (index: number) => Array.from({ length: 25 }, (_, line) => `export const value${index}_${line} = compute(${line}, 'text');`).join('\n');

export default async function run(): Promise<BenchResult[]> {
  const root = await mkdtemp(join(tmpdir(), 'operator-bench-shell-changes-'));
  const workspace = join(root, 'workspace');
  const store = createStore({ driver: 'memory' });
  try {
    const files: string[] = [];
    for (let folder = 0; folder < folders; folder++) {
      mkdirSync(join(workspace, `dir${folder}`), { recursive: true });
      for (let index = 0; index < filesPerFolder; index++) {
        const path = join(workspace, `dir${folder}`, `file${index}.ts`);
        writeFileSync(path, fileContent(folder * filesPerFolder + index));
        files.push(path);
      }
    }
    /** Touches every file (its ctime is then now, whatever times are set): all within the 2 s window. */
    const touchAll = () => {
      const now = Date.now() / 1000;
      for (const path of files) utimesSync(path, now, now);
    };
    /** Waits until the last touch is more than 2 s ago: every file settled. */
    let touchedAt = Date.now();
    const settle = () => new Promise((next) => setTimeout(next, Math.max(0, touchedAt + 2_100 - Date.now())));
    const snapshotAndCompare = async () => {
      const snapshot = await WorkspaceSnapshot.take({ roots: [workspace] });
      const diff = await snapshot.compare();
      if (diff.untracked !== undefined || diff.changes.length > 0) throw new Error(`unexpected: ${JSON.stringify(diff)}`);
    };

    const floor = median(await sample(200, () => bareWalk(workspace)));
    const readAll = median(
      await sample(100, () => {
        for (const path of files) readFileSync(path);
      }),
    );
    await settle();
    const settled = median(await sample(100, snapshotAndCompare, 20));
    // Touched before each round (outside the time): every file within the last 2 s.
    const freshTimes: number[] = [];
    for (let round = 0; round < 60; round++) {
      touchAll();
      const started = performance.now();
      await snapshotAndCompare();
      if (round >= 10) freshTimes.push(performance.now() - started);
    }
    const fresh = median(freshTimes);

    touchedAt = Date.now();
    await settle();
    const shell = createShellTool();
    const log = new ChangeLog(store, 'bench');
    const call = (changes?: ToolContext['changes']) => shell.execute({ command: 'true' }, { signal: new AbortController().signal, cwd: workspace, toolCallId: 'bench', changes });
    const plainTimes: number[] = [];
    const trackedTimes: number[] = [];
    for (let round = 0; round < 120; round++) {
      let started = performance.now();
      await call();
      const plain = performance.now() - started;
      started = performance.now();
      await call(log.forTurn('t'));
      const tracked = performance.now() - started;
      if (round >= 20) {
        plainTimes.push(plain);
        trackedTimes.push(tracked);
      }
    }
    const plainCall = median(plainTimes);
    const trackedCall = median(trackedTimes);

    return [
      { name: 'bare readdir walk of 1,000 files in 20 folders (floor, median)', value: floor, unit: 'ms' },
      { name: 'reading each of the 1,000 files once, readFileSync (second floor: what keeping the contents costs at least, median)', value: readAll, unit: 'ms' },
      {
        name: 'snapshot + compare, 1,000 settled files (median)',
        value: settled,
        unit: 'ms',
        target: '<= 20 ms',
        pass: settled <= 20,
        note: `${(settled / floor).toFixed(1)}x the floor; the snapshot reads all 1.5 MB, the compare only stats`,
      },
      { name: 'snapshot + compare, 1,000 files all written in the last 2 s (worst case, median)', value: fresh, unit: 'ms', note: 'every file read again after the command' },
      { name: 'shell `true` without a change log (median)', value: plainCall, unit: 'ms' },
      { name: 'shell `true` with a change log, 1,000 settled files (median)', value: trackedCall, unit: 'ms', note: `${(trackedCall - plainCall).toFixed(2)} ms added` },
    ];
  } finally {
    await store.close();
    await rm(root, { recursive: true, force: true });
  }
}

/** Every regular file under `root`, by `readdir` alone: the least any walk costs. */
function bareWalk(root: string): number {
  let count = 0;
  const pending = [root];
  while (pending.length > 0) {
    const folder = pending.pop()!;
    for (const entry of readdirSync(folder, { withFileTypes: true }) as Dirent[]) {
      if (entry.isDirectory()) pending.push(join(folder, entry.name));
      else if (entry.isFile()) count++;
    }
  }
  return count;
}
