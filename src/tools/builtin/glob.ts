/** The `glob` tool: files matching a pattern, most recently changed first, found by the turn's file worker. */
import * as z from 'zod';
import { turnFiles, workerErrorResult } from '../files/turn-files.ts';
import { defineTool } from '../tool.ts';
import type { ToolOutput } from '../tool.ts';
import { fileAccessOf, resolvePath, workingDirectory } from './paths.ts';
import type { BuiltinToolOptions } from './paths.ts';
import { errorResult } from './results.ts';

const parameters = z.object({
  pattern: z.string().min(1).describe('Glob pattern, e.g. "**/*.ts" or "src/*.{js,json}".'),
  path: z.string().optional().describe('Base directory for the search. Default: the working directory.'),
});

/** What the file worker's `stat` and `glob` answer. */
interface StatResult {
  type: 'file' | 'directory' | 'other' | 'broken-link';
}
interface GlobResult {
  files: string[];
  complete: boolean;
  total?: number;
}

/** Creates the `glob` tool. */
export function createGlobTool(options: BuiltinToolOptions = {}) {
  return defineTool({
    name: 'glob',
    machine: 'read',
    description:
      'Find files by glob pattern. Returns absolute paths, most recently modified first. node_modules and .git ' +
      'are skipped unless the pattern names them.',
    parameters,
    async execute(args, context): Promise<ToolOutput> {
      context.signal.throwIfAborted();
      const cwd = workingDirectory(options, context);
      const displayBase = args.path ?? '.';
      const base = resolvePath(cwd, displayBase);
      const files = turnFiles(fileAccessOf(options), context, cwd);
      let result: GlobResult;
      try {
        const info = await files.call<StatResult>('stat', { path: base }).catch(() => undefined);
        if (info === undefined || info.type === 'broken-link') return errorResult(`path not found: ${displayBase}`);
        if (info.type !== 'directory') return errorResult(`not a directory: ${displayBase}`);
        result = await files.call<GlobResult>('glob', { base, pattern: args.pattern, ignore: ignoredFor(args.pattern) });
      } catch (error) {
        return workerErrorResult(error, displayBase, 'the search', context.signal);
      }
      if (result.files.length === 0) return { content: 'No files matched.' };
      const note = result.complete ? '' : `\n[Showing ${result.files.length} files; the search found more or stopped early.]`;
      return { content: result.files.join('\n') + note };
    },
  });
}

/** node_modules and .git drown every broad pattern, but a pattern that names one asks for it. */
function ignoredFor(pattern: string): string[] {
  return ['node_modules', '.git'].filter((name) => !pattern.includes(name)).map((name) => `**/${name}/**`);
}
