/**
 * The `apply_patch` tool: applies a unified diff that may create, change, rename and delete
 * several files. Every file is patched in memory first, so a patch that does not fit changes
 * nothing.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { StructuredPatch } from 'diff';
import { z } from 'zod';
import { errorMessage } from '../../core/errors.ts';
import { defineTool } from '../tool.ts';
import type { ToolOutput } from '../tool.ts';
import { loadDiff } from './load-libraries.ts';
import { resolvePath, workingDirectory } from './paths.ts';
import type { BuiltinToolOptions } from './paths.ts';
import { recountHunks } from './recount-hunks.ts';
import { errorCode, errorResult, fileErrorResult } from './results.ts';
import { readCurrent } from '../changes/read-current.ts';

const parameters = z.object({
  patch: z.string().min(1).describe('Unified diff (as from `diff -u` or `git diff`); may touch several files.'),
});

const devNull = '/dev/null';

/** A file's content after the patch; null when the patch deletes it. */
type PendingFiles = Map<string, { display: string; content: string | null }>;

/** The `diff` library (loaded on the tool's first run). */
type Diff = Awaited<ReturnType<typeof loadDiff>>;

/** Creates the `apply_patch` tool. */
export function createApplyPatchTool(options: BuiltinToolOptions = {}) {
  return defineTool({
    name: 'apply_patch',
    machine: 'write',
    description:
      'Apply a unified diff to files. Use `--- a/path` / `+++ b/path` headers and `@@` hunks with a few lines of ' +
      'context; `--- /dev/null` creates a file and `+++ /dev/null` deletes one. Either every file is patched or none is.',
    parameters,
    async execute(args, context): Promise<ToolOutput> {
      context.signal.throwIfAborted();
      const cwd = workingDirectory(options, context);
      const diff = await loadDiff();
      let filePatches: StructuredPatch[];
      try {
        filePatches = parseLeniently(diff, args.patch);
      } catch (error) {
        return errorResult(`invalid patch: ${errorMessage(error)}`);
      }
      filePatches = filePatches.filter((filePatch) => filePatch.hunks.length > 0 || changesWithoutHunks(filePatch));
      if (filePatches.length === 0) return errorResult('no file changes found in the patch');

      const pending: PendingFiles = new Map();
      const summary: string[] = [];
      for (const filePatch of filePatches) {
        const outcome = await planFile(diff, filePatch, cwd, pending);
        if (typeof outcome !== 'string') return outcome;
        summary.push(outcome);
      }
      context.signal.throwIfAborted();
      for (const [file, { display, content }] of pending) {
        try {
          const before = context.changes ? await readCurrent(file) : null;
          if (content === null) await rm(file, { force: true });
          else {
            await mkdir(path.dirname(file), { recursive: true });
            await writeFile(file, content, 'utf8');
          }
          await context.changes?.record({ path: file, before, after: content, tool: 'apply_patch' });
        } catch (error) {
          return fileErrorResult(error, display);
        }
      }
      return { content: `Successfully applied patch:\n${summary.join('\n')}` };
    },
  });
}

function parseLeniently(diff: Diff, patch: string): StructuredPatch[] {
  try {
    return diff.parsePatch(patch);
  } catch (error) {
    try {
      return diff.parsePatch(recountHunks(patch));
    } catch {
      throw error;
    }
  }
}

/** Git patches create empty files, delete files and rename them without any hunk. */
function changesWithoutHunks(filePatch: StructuredPatch): boolean {
  return filePatch.isCreate === true || filePatch.isDelete === true || filePatch.isRename === true;
}

/**
 * Works out one file's new content into `pending` and returns a summary line, or an error result
 * when it cannot be applied.
 */
async function planFile(diff: Diff, filePatch: StructuredPatch, cwd: string, pending: PendingFiles): Promise<string | ToolOutput> {
  if (filePatch.isBinary) return errorResult('binary patches are not supported');
  const names = fileNames(filePatch);
  if (names === undefined) return errorResult('a hunk in the patch has no `---`/`+++` file names');
  const { oldName, newName } = names;
  const creates = oldName === undefined;
  const deletes = newName === undefined;
  const source = (creates ? newName : oldName)!;
  const current = await load(resolvePath(cwd, source), pending);
  if (typeof current !== 'string' && current !== null) return fileErrorResult(current.error, source);
  if (creates && current !== null) return errorResult(`cannot create ${source}: it already exists`);
  if (!creates && current === null) return errorResult(`file not found: ${source}`);

  const patched = applyHunks(diff, current ?? '', filePatch, source);
  if (typeof patched !== 'string') return patched;
  if (deletes) {
    pending.set(resolvePath(cwd, source), { display: source, content: null });
    return `deleted ${source}`;
  }
  if (creates) {
    pending.set(resolvePath(cwd, source), { display: source, content: patched });
    return `created ${source}`;
  }
  if (oldName !== newName) {
    const target = await load(resolvePath(cwd, newName!), pending);
    if (target !== null && typeof target !== 'string') return fileErrorResult(target.error, newName!);
    if (target !== null) return errorResult(`cannot rename ${oldName} to ${newName}: ${newName} already exists`);
    pending.set(resolvePath(cwd, oldName!), { display: oldName!, content: null });
    pending.set(resolvePath(cwd, newName!), { display: newName!, content: patched });
    return `renamed ${oldName} -> ${newName}`;
  }
  pending.set(resolvePath(cwd, source), { display: source, content: patched });
  return `updated ${source}`;
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

/** Current content as the patch so far leaves it: null when absent, `{ error }` when unreadable. */
async function load(file: string, pending: PendingFiles): Promise<string | null | { error: unknown }> {
  const planned = pending.get(file);
  if (planned !== undefined) return planned.content;
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    return errorCode(error) === 'ENOENT' ? null : { error };
  }
}

function applyHunks(diff: Diff, source: string, filePatch: StructuredPatch, display: string): string | ToolOutput {
  const patched = diff.applyPatch(source, filePatch);
  if (patched !== false) return patched;
  // Find the first hunk that does not fit, so the model knows where to look.
  for (let count = 1; count <= filePatch.hunks.length; count++) {
    if (diff.applyPatch(source, { ...filePatch, hunks: filePatch.hunks.slice(0, count) }) === false) {
      const hunk = filePatch.hunks[count - 1]!;
      return errorResult(
        `hunk ${count} of ${filePatch.hunks.length} (@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@) ` +
          `does not match ${display}. Read the file again and make the context lines match it exactly. No file was changed.`,
      );
    }
  }
  return errorResult(`the patch does not match ${display}. No file was changed.`);
}
