/**
 * The `grep` tool: regular-expression search over files, done by the turn's file worker inside its
 * sandbox, with a time limit (see `files/worker/search-ops.js`).
 */
import * as z from 'zod';
import { turnFiles, workerErrorResult } from '../files/turn-files.ts';
import { defineTool } from '../tool.ts';
import { sharedFileSource } from '../turn-taint.ts';
import type { ToolOutput } from '../tool.ts';
import { fileAccessOf, resolvePath, workingDirectory } from './paths.ts';
import type { BuiltinToolOptions } from './paths.ts';
import { errorResult } from './results.ts';

/** Options of {@link createGrepTool}. */
export interface GrepToolOptions extends BuiltinToolOptions {
  /** Files larger than this are skipped, in bytes. Default 10 MiB. */
  maxFileBytes?: number;
  /** Milliseconds a search may take before it is stopped. Default: the file access's limit. */
  timeoutMs?: number;
}

const parameters = z.object({
  pattern: z.string().min(1).describe('Regular expression (JavaScript syntax) to search for.'),
  path: z.string().optional().describe('File or directory to search in. Default: the working directory.'),
  include: z.string().optional().describe('Glob of files to search, e.g. "*.ts" or "src/**/*.md".'),
  max_results: z.int().min(1).optional().describe('Maximum number of matches. Default: 100.'),
});

/** Folders never searched: dependencies and version-control internals. */
const skippedFolders = ['node_modules', '.git'];

/** What the file worker's `grep` answers. */
type GrepResult =
  | { kind: 'invalid-pattern'; message: string }
  | { kind: 'missing' }
  | { kind: 'matches'; matches: string[]; more: boolean; complete: boolean };

/** Creates the `grep` tool. */
export function createGrepTool(options: GrepToolOptions = {}) {
  const maxFileBytes = options.maxFileBytes ?? 10 * 1024 * 1024;
  const timeoutMs = options.timeoutMs;
  return defineTool({
    name: 'grep',
    machine: 'read',
    // Files other people sent in a group are untrusted content (see `turn-taint.ts`).
    untrustedSource: (args, turn) => sharedFileSource(turn, args['path']),
    description:
      'Search file contents with a regular expression. Returns `path:line: text` lines, paths relative to the ' +
      'working directory. Skips node_modules, .git and binary files.',
    parameters,
    async execute(args, context): Promise<ToolOutput> {
      context.signal.throwIfAborted();
      const cwd = workingDirectory(options, context);
      const displayRoot = args.path ?? '.';
      const root = resolvePath(cwd, displayRoot);
      const maxResults = args.max_results ?? 100;
      let result: GrepResult;
      try {
        // The pattern is compiled and run by the worker, never here: one that backtracks for ever
        // costs the worker its life at the time limit, not the gateway its event loop.
        result = await turnFiles(fileAccessOf(options), context, cwd).call<GrepResult>(
          'grep',
          { root, cwd, pattern: args.pattern, include: args.include, maxResults, maxFileBytes, skipFolders: skippedFolders },
          { timeoutMs },
        );
      } catch (error) {
        return workerErrorResult(error, displayRoot, 'the search', context.signal);
      }
      if (result.kind === 'invalid-pattern') return errorResult(`invalid regular expression: ${result.message}`);
      if (result.kind === 'missing') return errorResult(`path not found: ${displayRoot}`);
      const incomplete = result.complete ? '' : '\n[The folder has too many entries: only part of it was searched.]';
      if (result.matches.length === 0) return { content: `No matches found.${incomplete}` };
      if (!result.more) return { content: result.matches.join('\n') + incomplete };
      return { content: `${result.matches.join('\n')}\n[Showing the first ${maxResults} matches; there are more.]${incomplete}` };
    },
  });
}

