/** The `read_file` tool: a text file with `cat -n` line numbers, or an image the model can see. */
import * as z from 'zod';
import { turnFiles, workerErrorResult } from '../files/turn-files.ts';
import { defineTool } from '../tool.ts';
import { sharedFileSource } from '../turn-taint.ts';
import type { ToolOutput } from '../tool.ts';
import { fileAccessOf, resolvePath, workingDirectory } from './paths.ts';
import type { BuiltinToolOptions } from './paths.ts';
import { errorResult } from './results.ts';

/** Options of {@link createReadFileTool}. */
export interface ReadFileToolOptions extends BuiltinToolOptions {
  /** Largest image returned to the model, in bytes. Default 5 MiB (the strictest provider limit). */
  maxImageBytes?: number;
  /** Largest text file read without `limit`, in bytes. Default 32 MiB. */
  maxTextBytes?: number;
}

const parameters = z.object({
  path: z.string().min(1).describe('Absolute path, or path relative to the working directory.'),
  offset: z.int().min(1).optional().describe('1-based line number to start reading from.'),
  limit: z.int().min(1).optional().describe('Maximum number of lines to read.'),
});

/** What the file worker's `read` answers. */
type ReadResult =
  | { kind: 'directory' | 'special' | 'binary' | 'empty' }
  | { kind: 'image-too-large' | 'text-too-large'; size: number }
  | { kind: 'image'; mediaType: string; size: number; data: string }
  | { kind: 'past-end'; lines: number }
  | { kind: 'text'; text: string };

/** Creates the `read_file` tool; the file is read by the turn's file worker, inside its sandbox. */
export function createReadFileTool(options: ReadFileToolOptions = {}) {
  const maxImageBytes = options.maxImageBytes ?? 5 * 1024 * 1024;
  const maxTextBytes = options.maxTextBytes ?? 32 * 1024 * 1024;
  return defineTool({
    name: 'read_file',
    machine: 'read',
    // Files other people sent in a group are untrusted content (see `turn-taint.ts`).
    untrustedSource: (args, turn) => sharedFileSource(turn, args['path']),
    description:
      'Read a file. Text comes back with line numbers (`     1\\tfirst line`); use offset and limit to read part of a ' +
      'long file. PNG, JPEG, GIF and WebP images come back as images.',
    parameters,
    async execute(args, context): Promise<ToolOutput> {
      context.signal.throwIfAborted();
      const cwd = workingDirectory(options, context);
      const file = resolvePath(cwd, args.path);
      let result: ReadResult;
      try {
        result = await turnFiles(fileAccessOf(options), context, cwd).call<ReadResult>('read', { path: file, offset: args.offset, limit: args.limit, maxImageBytes, maxTextBytes });
      } catch (error) {
        return workerErrorResult(error, args.path, `reading ${args.path}`, context.signal);
      }
      switch (result.kind) {
        case 'directory':
          return errorResult(`${args.path} is a directory`);
        case 'special':
          return errorResult(`${args.path} is not a regular file`);
        case 'binary':
          return errorResult(`${args.path} is a binary file`);
        case 'empty':
          return { content: `${args.path}: (empty file)` };
        case 'image-too-large':
          return errorResult(`image ${args.path} is ${result.size} bytes, more than the ${maxImageBytes} bytes allowed`);
        case 'text-too-large':
          return errorResult(`${args.path} is ${result.size} bytes; read it in parts with offset and limit`);
        case 'past-end':
          return errorResult(`offset ${args.offset ?? 1} is past the end of ${args.path} (${result.lines} lines)`);
        case 'image':
          return {
            content: [
              { type: 'text', text: `Image ${args.path} (${result.mediaType}, ${result.size} bytes)` },
              { type: 'image', data: result.data, mediaType: result.mediaType },
            ],
          };
        case 'text':
          return { content: result.text };
      }
    },
  });
}
