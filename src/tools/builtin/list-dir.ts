/** The `list_dir` tool: a directory tree with sizes, a few levels deep, listed by the turn's file worker. */
import * as z from 'zod';
import { turnFiles, workerErrorResult } from '../files/turn-files.ts';
import { defineTool } from '../tool.ts';
import type { ToolOutput } from '../tool.ts';
import { fileAccessOf, resolvePath, workingDirectory } from './paths.ts';
import type { BuiltinToolOptions } from './paths.ts';
import { errorResult } from './results.ts';

/** Options of {@link createListDirTool}. */
export interface ListDirToolOptions extends BuiltinToolOptions {
  /** Most entries listed before the listing stops. Default 5,000. */
  maxEntries?: number;
}

const parameters = z.object({
  path: z.string().min(1).describe('Directory to list.'),
  depth: z.int().min(1).optional().describe('How many levels deep to list. Default: 1.'),
});

/** What the file worker's `list` answers. */
type ListResult = { kind: 'missing' | 'not-directory' } | { kind: 'listing'; lines: string[]; complete: boolean };

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
      const cwd = workingDirectory(options, context);
      const directory = resolvePath(cwd, args.path);
      let result: ListResult;
      try {
        result = await turnFiles(fileAccessOf(options), context, cwd).call<ListResult>('list', { path: directory, depth: args.depth ?? 1, maxEntries });
      } catch (error) {
        return workerErrorResult(error, args.path, `listing ${args.path}`, context.signal);
      }
      if (result.kind !== 'listing') return errorResult(result.kind === 'missing' ? `directory not found: ${args.path}` : `not a directory: ${args.path}`);
      if (result.lines.length === 0) return { content: `${args.path}: (empty directory)` };
      const lines = result.complete ? result.lines : [...result.lines, `[Listing stopped after ${maxEntries} entries.]`];
      return { content: lines.join('\n') };
    },
  });
}
