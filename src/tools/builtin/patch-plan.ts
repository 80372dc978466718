/**
 * The one reading of a unified diff: `apply_patch` applies the files it finds, and the
 * workspace-confinement guardrail checks the same files, so what is checked is what is written
 * (two parsers that disagree on a header let a patch through to a file the check never saw).
 */
import type { StructuredPatch } from 'diff';
import { errorMessage } from '../../core/errors.ts';
import { loadDiff } from './load-libraries.ts';
import { recountHunks } from './recount-hunks.ts';

/** One file's part of a patch, with the paths on each side (git's `a/`, `b/` removed; unset for `/dev/null`). */
export interface FilePatch {
  patch: StructuredPatch;
  oldName?: string;
  newName?: string;
}

/** Why a patch cannot be read; the message is for the model. */
export class PatchError extends Error {}

const devNull = '/dev/null';

/**
 * The files a patch changes, in order. Throws {@link PatchError} when it cannot be parsed, when
 * it changes nothing, or when a part has no file names or is binary.
 */
export async function parsePatchFiles(patch: string): Promise<FilePatch[]> {
  const diff = await loadDiff();
  let parsed: StructuredPatch[];
  try {
    parsed = parseLeniently(diff.parsePatch, patch);
  } catch (error) {
    throw new PatchError(`invalid patch: ${errorMessage(error)}`);
  }
  const files: FilePatch[] = [];
  for (const part of parsed) {
    if (part.hunks.length === 0 && !changesWithoutHunks(part)) continue;
    if (part.isBinary) throw new PatchError('binary patches are not supported');
    const names = fileNames(part);
    if (names === undefined) throw new PatchError('a hunk in the patch has no `---`/`+++` file names');
    files.push({ patch: part, ...names });
  }
  if (files.length === 0) throw new PatchError('no file changes found in the patch');
  return files;
}

/** Every path `apply_patch` would read or write for `patch`, as written; none when it cannot be read (the tool then refuses it). */
export async function patchTargets(patch: string): Promise<string[]> {
  try {
    const files = await parsePatchFiles(patch);
    return [...new Set(files.flatMap((file) => [file.oldName, file.newName].filter((name) => name !== undefined)))];
  } catch (error) {
    if (error instanceof PatchError) return [];
    throw error;
  }
}

function parseLeniently(parse: (patch: string) => StructuredPatch[], patch: string): StructuredPatch[] {
  try {
    return parse(patch);
  } catch (error) {
    try {
      return parse(recountHunks(patch));
    } catch {
      throw error;
    }
  }
}

/** Git patches create empty files, delete files and rename them without any hunk. */
function changesWithoutHunks(filePatch: StructuredPatch): boolean {
  return filePatch.isCreate === true || filePatch.isDelete === true || filePatch.isRename === true;
}

/** The paths on each side, with git's `a/` and `b/` prefixes removed; undefined for `/dev/null`. */
function fileNames(filePatch: StructuredPatch): { oldName?: string; newName?: string } | undefined {
  const oldRaw = filePatch.oldFileName;
  const newRaw = filePatch.newFileName;
  if (!oldRaw && !newRaw) return undefined;
  const oldIsNull = oldRaw === devNull || (filePatch.isCreate === true && !filePatch.isRename);
  const newIsNull = newRaw === devNull || filePatch.isDelete === true;
  const prefixed =
    filePatch.isGit === true ||
    ((oldRaw === devNull || oldRaw?.startsWith('a/') === true) && (newRaw === devNull || newRaw?.startsWith('b/') === true));
  const strip = (name: string | undefined, prefix: string) =>
    name === undefined || name === devNull ? undefined : prefixed && name.startsWith(prefix) ? name.slice(2) : name;
  const oldName = oldIsNull ? undefined : (strip(oldRaw, 'a/') ?? strip(newRaw, 'b/'));
  const newName = newIsNull ? undefined : (strip(newRaw, 'b/') ?? strip(oldRaw, 'a/'));
  if (oldName === undefined && newName === undefined) return undefined;
  return { oldName, newName };
}
