/**
 * Undo: what recording a change adds to `write_file` and `edit_file` on a 100 KB file (the same
 * tool without a change log is the floor, measured in the same run, alternating), the storing
 * that follows in the background (timed apart: the log is drained after each call, outside the
 * tool's time, as the model call after a tool gives it time to finish), and `/undo turn` of 50
 * changes. The change log is on the filesystem store, as by default.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStore } from '../src/store/unstorage-store.ts';
import { createEditFileTool } from '../src/tools/builtin/edit-file.ts';
import { createWriteFileTool } from '../src/tools/builtin/write-file.ts';
import { ChangeLog } from '../src/tools/changes/change-log.ts';
import { defaultFileAccess, filesIn, localKey } from '../src/tools/files/turn-files.ts';
import { undoCommand } from '../src/tools/changes/changes-command.ts';
import type { Tool, ToolContext } from '../src/tools/tool.ts';
import { median, type BenchResult } from './lib.ts';

const write = createWriteFileTool();
const edit = createEditFileTool();

/** About 100 KB of source-like text. */
const content = Array.from({ length: 2_000 }, (_, index) => `export const value${index} = compute(${index}, 'some text here');`).join('\n');

export default async function run(): Promise<BenchResult[]> {
  const folder = await mkdtemp(join(tmpdir(), 'operator-bench-undo-'));
  const store = createStore({ driver: 'fs', base: join(folder, 'store') });
  try {
    const log = new ChangeLog(store, 'bench');
    const call = (tool: Tool, args: Record<string, unknown>, changes?: ToolContext['changes']) =>
      tool.execute(tool.parameters.parse(args), { signal: new AbortController().signal, cwd: folder, toolCallId: 'bench', changes });
    const drain = () => log.changes();
    const writes = await paired(
      () => call(write, { path: 'plain.ts', content }),
      () => call(write, { path: 'recorded.ts', content }, log.forTurn('t')),
      drain,
    );
    await writeFile(join(folder, 'plain-edit.ts'), content);
    await writeFile(join(folder, 'recorded-edit.ts'), content);
    let flip = false;
    const edits = await paired(
      () => call(edit, { path: 'plain-edit.ts', old_string: flip ? 'value7 ' : 'value7x ', new_string: flip ? 'value7x ' : 'value7 ' }),
      () => {
        flip = !flip;
        return call(edit, { path: 'recorded-edit.ts', old_string: flip ? 'value7 ' : 'value7x ', new_string: flip ? 'value7x ' : 'value7 ' }, log.forTurn('t'));
      },
      drain,
    );
    const undoTimes: number[] = [];
    for (let round = 0; round < 7; round++) {
      const turn = log.forTurn(`undo-${round}`);
      for (let index = 0; index < 50; index++) await call(write, { path: `undo/f${index}.ts`, content: content.slice(0, 10_000) + round }, turn);
      const started = performance.now();
      await undoCommand(log, 'turn', folder, filesIn(defaultFileAccess(), localKey, { cwd: folder, roots: [folder], writable: true, hidden: [] }));
      undoTimes.push(performance.now() - started);
    }
    const undo = median(undoTimes.slice(2));
    return [
      { name: 'write_file of 100 KB, no change log (floor, median)', value: writes.floor, unit: 'ms' },
      { name: 'recording a write_file of 100 KB, beyond the bare write (median)', value: writes.added, unit: 'ms', target: '<= 0.2 ms', pass: writes.added <= 0.2, note: `${writes.recorded.toFixed(3)} ms with the record` },
      { name: 'storing that change in the background, after the tool returned (median)', value: writes.background, unit: 'ms', note: 'one 100 KB content and a log line' },
      { name: 'edit_file of 100 KB, no change log (floor, median)', value: edits.floor, unit: 'ms' },
      { name: 'recording an edit_file of 100 KB, beyond the bare edit (median)', value: edits.added, unit: 'ms', target: '<= 0.2 ms', pass: edits.added <= 0.2, note: `${edits.recorded.toFixed(3)} ms with the record` },
      { name: 'storing that change in the background, after the tool returned (median)', value: edits.background, unit: 'ms', note: "one 100 KB content (the 'before' is the last change's 'after') and a log line" },
      { name: '/undo turn of 50 changes (10 KB files, median of 5)', value: undo, unit: 'ms', target: '<= 50 ms', pass: undo <= 50 },
    ];
  } finally {
    await store.close();
    await rm(folder, { recursive: true, force: true });
  }
}

/**
 * Medians of `plain` and `recorded`, run alternately 400 times after a warm-up, their difference,
 * and the median time of `drain` after each recorded call (outside its time).
 */
async function paired(plain: () => Promise<unknown>, recorded: () => Promise<unknown>, drain: () => Promise<unknown>): Promise<{ floor: number; recorded: number; added: number; background: number }> {
  const plainTimes: number[] = [];
  const recordedTimes: number[] = [];
  const drainTimes: number[] = [];
  for (let index = 0; index < 450; index++) {
    let started = performance.now();
    await plain();
    const first = performance.now() - started;
    started = performance.now();
    await recorded();
    const second = performance.now() - started;
    started = performance.now();
    await drain();
    const third = performance.now() - started;
    if (index >= 50) {
      plainTimes.push(first);
      recordedTimes.push(second);
      drainTimes.push(third);
    }
  }
  const floor = median(plainTimes);
  const withRecord = median(recordedTimes);
  return { floor, recorded: withRecord, added: withRecord - floor, background: median(drainTimes) };
}
