/** The `glob` tool: files matching a pattern, most recently changed first. */
import { stat } from 'node:fs/promises';
import { z } from 'zod';
import { defineTool } from '../tool.ts';
import type { ToolOutput } from '../tool.ts';
import { loadTinyglobby } from './load-libraries.ts';
import { resolvePath, workingDirectory } from './paths.ts';
import type { BuiltinToolOptions } from './paths.ts';
import { errorResult, fileErrorResult } from './results.ts';

const parameters = z.object({
  pattern: z.string().min(1).describe('Glob pattern, e.g. "**/*.ts" or "src/*.{js,json}".'),
  path: z.string().optional().describe('Base directory for the search. Default: the working directory.'),
});

/** Stat calls in flight at once while sorting by modification time. */
const statConcurrency = 64;

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
      const displayBase = args.path ?? '.';
      const base = resolvePath(workingDirectory(options, context), displayBase);
      try {
        const baseInfo = await stat(base).catch(() => undefined);
        if (baseInfo === undefined) return errorResult(`path not found: ${displayBase}`);
        if (!baseInfo.isDirectory()) return errorResult(`not a directory: ${displayBase}`);
        const { glob } = await loadTinyglobby();
        const files = await glob(args.pattern, {
          cwd: base,
          absolute: true,
          dot: true,
          onlyFiles: true,
          ignore: ignoredFor(args.pattern),
          signal: context.signal,
        });
        if (files.length === 0) return { content: 'No files matched.' };
        const sorted = await sortNewestFirst(files);
        return { content: sorted.join('\n') };
      } catch (error) {
        return fileErrorResult(error, displayBase, context.signal);
      }
    },
  });
}

/** node_modules and .git drown every broad pattern, but a pattern that names one asks for it. */
function ignoredFor(pattern: string): string[] {
  return ['node_modules', '.git'].filter((name) => !pattern.includes(name)).map((name) => `**/${name}/**`);
}

async function sortNewestFirst(files: string[]): Promise<string[]> {
  const times = new Map<string, number>();
  for (let start = 0; start < files.length; start += statConcurrency) {
    await Promise.all(
      files.slice(start, start + statConcurrency).map(async (file) => {
        // A file deleted since the crawl sorts last rather than failing the search.
        times.set(file, (await stat(file).catch(() => undefined))?.mtimeMs ?? 0);
      }),
    );
  }
  return [...files].sort((a, b) => times.get(b)! - times.get(a)! || (a < b ? -1 : a > b ? 1 : 0));
}
