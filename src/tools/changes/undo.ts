/**
 * Taking back recorded changes: a created file is deleted, a deleted one restored, a changed one
 * rewritten as it was. A change is undone at most once, and a file that is no longer as the change
 * left it (changed by hand or by another program since) is left alone unless `force` says so.
 */
import { isAbsolute, relative, resolve } from 'node:path';
import { errorCode } from '../builtin/results.ts';
import type { TurnFiles } from '../files/turn-files.ts';
import type { ChangeLog } from './change-log.ts';
import type { FileChange } from './file-change.ts';
import { readCurrent } from './read-current.ts';

/** What to undo: the last change, every change of the last turn, or every change of one file. */
export type UndoSelection = { kind: 'last' } | { kind: 'turn' } | { kind: 'file'; path: string };

/** What an undo did, a line per change, and whether anything was left alone. */
export interface UndoReport {
  lines: string[];
  undone: number;
  refused: number;
}

/**
 * Undoes the changes `selection` picks from `log`, newest first, reading and writing the files
 * through `options.files` (the conversation's file worker, in its seat's sandbox). Paths are shown
 * relative to `cwd` (and a `file` selection is resolved against it).
 */
export async function undoChanges(log: ChangeLog, selection: UndoSelection, options: { cwd: string; force?: boolean; files: TurnFiles }): Promise<UndoReport> {
  const pending = (await log.changes()).filter((change) => change.undone === undefined);
  const picked = pick(pending, selection, options.cwd);
  const report: UndoReport = { lines: log.takeFailures().map((failure) => `Note: ${failure}.`), undone: 0, refused: 0 };
  if (picked.length === 0) {
    report.lines.push(nothingToUndo(selection, options.cwd));
    return report;
  }
  // Once a file's newer change is left alone, its older ones stay too: they lie beneath it.
  const blocked = new Set<string>();
  for (const change of picked.reverse()) {
    const shown = display(change.path, options.cwd);
    if (blocked.has(change.path)) {
      report.refused++;
      report.lines.push(`Left ${shown} (${change.tool}) as it is: a later change to it was not undone.`);
      continue;
    }
    const refusal = await undoOne(log, change, options.force === true, options.files);
    if (refusal) {
      blocked.add(change.path);
      report.refused++;
      report.lines.push(`Left ${shown} as it is: ${refusal}`);
      continue;
    }
    await log.markUndone([change.id]);
    report.undone++;
    report.lines.push(`Undid ${change.tool} on ${shown}: ${change.before === null ? 'deleted it (the change created it)' : change.after === null ? 'restored it (the change deleted it)' : 'restored what it was before'}.`);
  }
  return report;
}

/** Puts one change's file back as it was before, or says why not. */
async function undoOne(log: ChangeLog, change: FileChange, force: boolean, files: TurnFiles): Promise<string | undefined> {
  if (change.omitted) return 'the file was too large for its contents to be kept, so this change cannot be undone.';
  let before: string | null;
  let after: string | null;
  try {
    [before, after] = await Promise.all([change.before === null ? null : log.content(change.before), change.after === null ? null : log.content(change.after)]);
  } catch (error) {
    return `${(error as Error).message}.`;
  }
  let current: string | null;
  try {
    current = await readCurrent(files, change.path);
  } catch (error) {
    return `it cannot be read (${errorCode(error) ?? (error as Error).message}).`;
  }
  if (current !== after && !force) {
    const now = current === null ? 'it has been deleted' : change.after === null ? 'it has been created again' : 'it has been changed';
    return `${now} since ${change.tool} changed it (by hand or by another program); add "force" to undo anyway.`;
  }
  try {
    if (before === null) await files.call('remove', { path: change.path });
    else await files.call('write', { path: change.path, content: before });
    return undefined;
  } catch (error) {
    return `it cannot be written (${errorCode(error) ?? (error as Error).message}).`;
  }
}

function pick(pending: FileChange[], selection: UndoSelection, cwd: string): FileChange[] {
  if (pending.length === 0) return [];
  switch (selection.kind) {
    case 'last':
      return [pending.at(-1)!];
    case 'turn': {
      const turn = pending.at(-1)!.turn;
      return pending.filter((change) => change.turn === turn);
    }
    case 'file': {
      const path = resolve(cwd, selection.path);
      return pending.filter((change) => change.path === path);
    }
  }
}

function nothingToUndo(selection: UndoSelection, cwd: string): string {
  if (selection.kind === 'file') return `No change to ${display(resolve(cwd, selection.path), cwd)} is left to undo.`;
  return 'No change is left to undo.';
}

/** `path` relative to `cwd` when inside it, else as it is. */
export function display(path: string, cwd: string): string {
  const inside = relative(cwd, path);
  return inside !== '' && !inside.startsWith('..') && !isAbsolute(inside) ? inside : path;
}
