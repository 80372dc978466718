/**
 * `/undo` and `/diff` as the chats and the terminal answer them: parsing, and the words of the
 * answer. Who may use them is the caller's to decide (see the gateway's commands).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ChangeLog } from './change-log.ts';
import type { TurnFiles } from '../files/turn-files.ts';
import { pendingDiff } from './pending-diff.ts';
import { undoChanges, type UndoSelection } from './undo.ts';
import { privateFileMode, privateFolderMode } from '../../core/private-modes.ts';

/** How `/undo` is used. */
export const undoUsage = 'Usage: /undo (the last change) | /undo turn (every change of the last turn) | /undo file PATH; add "force" to undo over later changes to a file.';

/** `turn`, `file PATH`, or nothing; each may end with `force`. A string is the usage, for anything else. */
export function parseUndoArgs(args: string): { selection: UndoSelection; force: boolean } | string {
  const words = args.trim().split(/\s+/).filter((word) => word !== '');
  const force = words.at(-1)?.toLowerCase() === 'force';
  if (force) words.pop();
  if (words.length === 0) return { selection: { kind: 'last' }, force };
  const [verb, ...rest] = words;
  if (verb!.toLowerCase() === 'turn' && rest.length === 0) return { selection: { kind: 'turn' }, force };
  if (verb!.toLowerCase() === 'file' && rest.length > 0) return { selection: { kind: 'file', path: rest.join(' ') }, force };
  return undoUsage;
}

/**
 * Runs `/undo args` on `log`; paths resolved against and shown relative to `cwd`, files changed
 * through `files` (the conversation's file worker).
 */
export async function undoCommand(log: ChangeLog, args: string, cwd: string, files: TurnFiles): Promise<string> {
  const parsed = parseUndoArgs(args);
  if (typeof parsed === 'string') return parsed;
  const report = await undoChanges(log, parsed.selection, { cwd, force: parsed.force, files });
  return report.lines.join('\n');
}

/** What `/diff` answers: the text, and the diff as a file when it is too long to show inline. */
export interface DiffAnswer {
  text: string;
  file?: { path: string; name: string; size: number };
}

/**
 * Runs `/diff` on `log`. A diff longer than `inlineLimit` characters is written to a file in
 * `folder` and named in the answer instead (without a folder it is shown whole).
 */
export async function diffCommand(log: ChangeLog, cwd: string, options: { files: TurnFiles; inlineLimit?: number; folder?: string }): Promise<DiffAnswer> {
  const diff = await pendingDiff(log, cwd, options.files);
  const omitted =
    (diff.omitted.length > 0 ? `\nNot shown (their contents were not kept): ${diff.omitted.join(', ')}.` : '') + diff.failures.map((failure) => `\nNote: ${failure}.`).join('');
  if (diff.files === 0) return { text: `No recorded change stands: nothing to show.${omitted}` };
  const files = `${diff.files} file${diff.files === 1 ? '' : 's'} changed`;
  const limit = options.inlineLimit ?? Number.POSITIVE_INFINITY;
  if (diff.text.length <= limit || !options.folder) return { text: `${files}:\n\`\`\`diff\n${diff.text}\`\`\`${omitted}` };
  // The diff goes to the conversation's folder under OPERATOR_HOME: private, like all there.
  await mkdir(options.folder, { recursive: true, mode: privateFolderMode });
  const name = `changes-${new Date().toISOString().replace(/[:.]/g, '-')}.diff`;
  const path = join(options.folder, name);
  await writeFile(path, diff.text, { encoding: 'utf8', mode: privateFileMode });
  return { text: `${files}; the diff (${diff.text.length} characters) is attached as ${name}.${omitted}`, file: { path, name, size: Buffer.byteLength(diff.text) } };
}
