/** The `list_dir` tool: a directory tree with sizes, a few levels deep. */
import type { Dirent } from 'node:fs';
import { lstat, readdir, readlink, stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { defineTool } from '../tool.ts';
import type { ToolOutput } from '../tool.ts';
import { resolvePath, workingDirectory } from './paths.ts';
import type { BuiltinToolOptions } from './paths.ts';
import { errorResult, fileErrorResult } from './results.ts';

/** Options of {@link createListDirTool}. */
export interface ListDirToolOptions extends BuiltinToolOptions {
  /** Most entries listed before the listing stops. Default 5,000. */
  maxEntries?: number;
}

const parameters = z.object({
  path: z.string().min(1).describe('Directory to list.'),
  depth: z.int().min(1).optional().describe('How many levels deep to list. Default: 1.'),
});

/** Listed but not descended into: their contents are noise. */
const unexpandedDirectories = new Set(['node_modules', '.git']);

/** Creates the `list_dir` tool. */
export function createListDirTool(options: ListDirToolOptions = {}) {
  const maxEntries = options.maxEntries ?? 5_000;
  return defineTool({
    name: 'list_dir',
    machine: 'read',
    description:
      'List a directory: directories end with "/", files show their size in bytes, deeper levels are indented ' +
      'by two spaces. node_modules and .git are listed but not expanded.',
    parameters,
    async execute(args, context): Promise<ToolOutput> {
      context.signal.throwIfAborted();
      const directory = resolvePath(workingDirectory(options, context), args.path);
      try {
        const info = await stat(directory).catch(() => undefined);
        if (info === undefined) return errorResult(`directory not found: ${args.path}`);
        if (!info.isDirectory()) return errorResult(`not a directory: ${args.path}`);
        const lines: string[] = [];
        const complete = await listInto(lines, directory, 0, args.depth ?? 1, maxEntries, context.signal);
        if (lines.length === 0) return { content: `${args.path}: (empty directory)` };
        if (!complete) lines.push(`[Listing stopped after ${maxEntries} entries.]`);
        return { content: lines.join('\n') };
      } catch (error) {
        return fileErrorResult(error, args.path, context.signal);
      }
    },
  });
}

/** Appends one directory's entries (directories first), recursing; false when the cap was hit. */
async function listInto(
  lines: string[],
  directory: string,
  level: number,
  depth: number,
  maxEntries: number,
  signal: AbortSignal,
): Promise<boolean> {
  signal.throwIfAborted();
  const entries = await readdir(directory, { withFileTypes: true });
  // Code-unit order, not localeCompare: the listing must not depend on the machine's locale.
  entries.sort((a, b) => Number(b.isDirectory()) - Number(a.isDirectory()) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const indent = '  '.repeat(level);
  for (const entry of entries) {
    if (lines.length >= maxEntries) return false;
    const full = path.join(directory, entry.name);
    lines.push(indent + (await describe(entry, full)));
    if (entry.isDirectory() && level + 1 < depth && !unexpandedDirectories.has(entry.name)) {
      const complete = await listInto(lines, full, level + 1, depth, maxEntries, signal).catch((error: unknown) => {
        signal.throwIfAborted();
        // One unreadable subdirectory should not hide the rest of the tree.
        lines.push(`${indent}  [cannot list: ${(error as Error).message}]`);
        return true;
      });
      if (!complete) return false;
    }
  }
  return true;
}

async function describe(entry: Dirent, full: string): Promise<string> {
  if (entry.isDirectory()) return `${entry.name}/`;
  if (entry.isSymbolicLink()) return `${entry.name} -> ${await readlink(full).catch(() => '?')}`;
  const size = await lstat(full).then((info) => info.size).catch(() => undefined);
  return size === undefined ? entry.name : `${entry.name} (${size} bytes)`;
}
