/**
 * `/diff`: what the recorded changes that stand have done, file by file, as one unified diff from
 * each file as it was before its first such change to the file as it is now.
 */
import { loadDiff } from '../builtin/load-libraries.ts';
import type { TurnFiles } from '../files/turn-files.ts';
import type { ChangeLog } from './change-log.ts';
import type { FileChange } from './file-change.ts';
import { readCurrent } from './read-current.ts';
import { display } from './undo.ts';

/** The diff and how many files it covers (0: nothing to show). */
export interface PendingDiff {
  text: string;
  files: number;
  /** Files whose changes were too large to keep, named but not shown. */
  omitted: string[];
  /** Changes that could not be recorded since the log was last read. */
  failures: string[];
}

/** The standing changes of `log` as a unified diff, paths relative to `cwd`; files read through `files`. */
export async function pendingDiff(log: ChangeLog, cwd: string, files: TurnFiles): Promise<PendingDiff> {
  const first = new Map<string, FileChange>();
  const omitted = new Set<string>();
  for (const change of await log.changes()) {
    if (change.undone !== undefined) continue;
    if (change.omitted) omitted.add(change.path);
    if (!first.has(change.path)) first.set(change.path, change);
  }
  const diff = await loadDiff();
  const parts: string[] = [];
  for (const [path, change] of first) {
    if (omitted.has(path)) continue;
    const before = change.before === null ? null : await log.content(change.before).catch(() => undefined);
    if (before === undefined) {
      omitted.add(path);
      continue;
    }
    const now = await readCurrent(files, path).catch(() => undefined);
    if (now === undefined) {
      omitted.add(path);
      continue;
    }
    if (before === now) continue;
    const name = display(path, cwd);
    const patch = diff.createTwoFilesPatch(before === null ? '/dev/null' : `a/${name}`, now === null ? '/dev/null' : `b/${name}`, before ?? '', now ?? '', undefined, undefined, { context: 3 });
    // The library's first line is a separator of its own; git's form starts at the file names.
    parts.push(patch.replace(/^=+\n/, ''));
  }
  return { text: parts.join(''), files: parts.length, omitted: [...omitted].map((path) => display(path, cwd)), failures: log.takeFailures() };
}
