/** The `grep` tool: regular-expression search over files, in JavaScript so nothing needs installing. */
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { errorMessage } from '../../core/errors.ts';
import { defineTool } from '../tool.ts';
import type { ToolOutput } from '../tool.ts';
import { looksBinary, sniffLength } from './file-type.ts';
import { loadTinyglobby } from './load-libraries.ts';
import { resolvePath, workingDirectory } from './paths.ts';
import type { BuiltinToolOptions } from './paths.ts';
import { errorResult, fileErrorResult } from './results.ts';

/** Options of {@link createGrepTool}. */
export interface GrepToolOptions extends BuiltinToolOptions {
  /** Files larger than this are skipped, in bytes. Default 10 MiB. */
  maxFileBytes?: number;
}

const parameters = z.object({
  pattern: z.string().min(1).describe('Regular expression (JavaScript syntax) to search for.'),
  path: z.string().optional().describe('File or directory to search in. Default: the working directory.'),
  include: z.string().optional().describe('Glob of files to search, e.g. "*.ts" or "src/**/*.md".'),
  max_results: z.int().min(1).optional().describe('Maximum number of matches. Default: 100.'),
});

/** Directories never searched: dependencies and version-control internals. */
export const skippedDirectories = ['**/node_modules/**', '**/.git/**'];
/** Longest line shown; minified files would otherwise fill the whole result with one match. */
const maxLineChars = 1_000;

/** Creates the `grep` tool. */
export function createGrepTool(options: GrepToolOptions = {}) {
  const maxFileBytes = options.maxFileBytes ?? 10 * 1024 * 1024;
  return defineTool({
    name: 'grep',
    machine: 'read',
    description:
      'Search file contents with a regular expression. Returns `path:line: text` lines, paths relative to the ' +
      'working directory. Skips node_modules, .git and binary files.',
    parameters,
    async execute(args, context): Promise<ToolOutput> {
      context.signal.throwIfAborted();
      let regex: RegExp;
      try {
        regex = new RegExp(args.pattern);
      } catch (error) {
        return errorResult(`invalid regular expression: ${errorMessage(error)}`);
      }
      const cwd = workingDirectory(options, context);
      const displayRoot = args.path ?? '.';
      const root = resolvePath(cwd, displayRoot);
      const maxResults = args.max_results ?? 100;
      try {
        const rootInfo = await stat(root).catch(() => undefined);
        if (rootInfo === undefined) return errorResult(`path not found: ${displayRoot}`);
        const files = rootInfo.isDirectory() ? await listFiles(root, args.include, context.signal) : [root];
        const matches: string[] = [];
        for (const file of files) {
          context.signal.throwIfAborted();
          const text = await readText(file, maxFileBytes);
          if (text === undefined) continue;
          const display = path.relative(cwd, file) || path.basename(file);
          collectMatches(text, regex, display, matches, maxResults + 1);
          if (matches.length > maxResults) break;
        }
        if (matches.length === 0) return { content: 'No matches found.' };
        if (matches.length <= maxResults) return { content: matches.join('\n') };
        return {
          content: `${matches.slice(0, maxResults).join('\n')}\n[Showing the first ${maxResults} matches; there are more.]`,
        };
      } catch (error) {
        return fileErrorResult(error, displayRoot, context.signal);
      }
    },
  });
}

async function listFiles(root: string, include: string | undefined, signal: AbortSignal): Promise<string[]> {
  // Like ripgrep's --glob, a pattern without a slash matches file names at any depth.
  const pattern = include === undefined ? '**/*' : include.includes('/') ? include : `**/${include}`;
  const { glob } = await loadTinyglobby();
  const files = await glob(pattern, {
    cwd: root,
    absolute: true,
    dot: true,
    onlyFiles: true,
    followSymbolicLinks: false,
    ignore: skippedDirectories,
    signal,
  });
  return files.sort();
}

/** The file as text, or undefined when it is too large, binary or unreadable. */
async function readText(file: string, maxFileBytes: number): Promise<string | undefined> {
  try {
    const info = await stat(file);
    if (!info.isFile() || info.size > maxFileBytes) return undefined;
    const bytes = await readFile(file);
    if (looksBinary(bytes.subarray(0, sniffLength))) return undefined;
    return bytes.toString('utf8');
  } catch {
    // A file that vanished or cannot be read does not spoil the search of the others.
    return undefined;
  }
}

function collectMatches(text: string, regex: RegExp, display: string, matches: string[], limit: number): void {
  let lineNumber = 0;
  let start = 0;
  while (start < text.length && matches.length < limit) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    lineNumber++;
    let line = text.slice(start, end);
    if (line.endsWith('\r')) line = line.slice(0, -1);
    if (regex.test(line)) {
      const shown = line.length > maxLineChars ? `${line.slice(0, maxLineChars)} [... line truncated]` : line;
      matches.push(`${display}:${lineNumber}: ${shown}`);
    }
    if (end === text.length) break;
    start = end + 1;
  }
}
