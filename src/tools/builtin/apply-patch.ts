/**
 * The `apply_patch` tool: applies a unified diff that may create, change, rename and delete
 * several files. Every file is patched in memory first, so a patch that does not fit changes
 * nothing. The patch is read once (`patch-plan.ts`), the reading the workspace guardrail checks;
 * the files are read and written by the turn's file worker, inside its sandbox.
 */
import type { StructuredPatch } from 'diff';
import * as z from 'zod';
import { turnFiles, workerErrorResult, type TurnFiles } from '../files/turn-files.ts';
import { defineTool } from '../tool.ts';
import type { ToolOutput } from '../tool.ts';
import { loadDiff } from './load-libraries.ts';
import { fileAccessOf, resolvePath, workingDirectory } from './paths.ts';
import type { BuiltinToolOptions } from './paths.ts';
import { parsePatchFiles, PatchError, type FilePatch } from './patch-plan.ts';
import { errorResult } from './results.ts';

const parameters = z.object({
  patch: z.string().min(1).describe('Unified diff (as from `diff -u` or `git diff`); may touch several files.'),
});

/**
 * A file's content after the patch (null when the patch deletes it), and what it held before the
 * patch as it was read for planning (null: no such file), which the change log records.
 */
type PendingFiles = Map<string, { display: string; content: string | null; before: string | null }>;

/** The `diff` library (loaded on the tool's first run). */
type Diff = Awaited<ReturnType<typeof loadDiff>>;

/** What the file worker's `readText` answers. */
interface TextResult {
  content: string | null;
}

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
      let filePatches: FilePatch[];
      try {
        filePatches = await parsePatchFiles(args.patch);
      } catch (error) {
        if (error instanceof PatchError) return errorResult(error.message);
        throw error;
      }
      const files = turnFiles(fileAccessOf(options), context, cwd);
      const pending: PendingFiles = new Map();
      const summary: string[] = [];
      for (const filePatch of filePatches) {
        const outcome = await planFile(diff, filePatch, cwd, pending, files, context.signal);
        if (typeof outcome !== 'string') return outcome;
        summary.push(outcome);
      }
      context.signal.throwIfAborted();
      for (const [file, { display, content, before }] of pending) {
        try {
          if (content === null) await files.call('remove', { path: file });
          else await files.call('write', { path: file, content });
          await context.changes?.record({ path: file, before, after: content, tool: 'apply_patch' });
        } catch (error) {
          return workerErrorResult(error, display, `writing ${display}`);
        }
      }
      return { content: `Successfully applied patch:\n${summary.join('\n')}` };
    },
  });
}

/**
 * Works out one file's new content into `pending` and returns a summary line, or an error result
 * when it cannot be applied.
 */
async function planFile(diff: Diff, filePatch: FilePatch, cwd: string, pending: PendingFiles, files: TurnFiles, signal: AbortSignal): Promise<string | ToolOutput> {
  const { oldName, newName } = filePatch;
  const creates = oldName === undefined;
  const deletes = newName === undefined;
  const source = (creates ? newName : oldName)!;
  const current = await load(resolvePath(cwd, source), pending, files);
  if (typeof current !== 'string' && current !== null) return workerErrorResult(current.error, source, `reading ${source}`, signal);
  if (creates && current !== null) return errorResult(`cannot create ${source}: it already exists`);
  if (!creates && current === null) return errorResult(`file not found: ${source}`);

  const patched = applyHunks(diff, current ?? '', filePatch.patch, source);
  if (typeof patched !== 'string') return patched;
  // A file patched twice in one patch keeps what it held before the first.
  const plan = (file: string, display: string, content: string | null, read: string | null) =>
    pending.set(file, { display, content, before: pending.has(file) ? pending.get(file)!.before : read });
  if (deletes) {
    plan(resolvePath(cwd, source), source, null, current);
    return `deleted ${source}`;
  }
  if (creates) {
    plan(resolvePath(cwd, source), source, patched, current);
    return `created ${source}`;
  }
  if (oldName !== newName) {
    const target = await load(resolvePath(cwd, newName!), pending, files);
    if (target !== null && typeof target !== 'string') return workerErrorResult(target.error, newName!, `reading ${newName}`, signal);
    if (target !== null) return errorResult(`cannot rename ${oldName} to ${newName}: ${newName} already exists`);
    plan(resolvePath(cwd, oldName!), oldName!, null, current);
    plan(resolvePath(cwd, newName!), newName!, patched, null);
    return `renamed ${oldName} -> ${newName}`;
  }
  plan(resolvePath(cwd, source), source, patched, current);
  return `updated ${source}`;
}

/** Current content as the patch so far leaves it: null when absent, `{ error }` when unreadable. */
async function load(file: string, pending: PendingFiles, files: TurnFiles): Promise<string | null | { error: unknown }> {
  const planned = pending.get(file);
  if (planned !== undefined) return planned.content;
  try {
    return (await files.call<TextResult>('readText', { path: file })).content;
  } catch (error) {
    return { error };
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
