/** The `read_file` tool: a text file with `cat -n` line numbers, or an image the model can see. */
import { createReadStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { defineTool } from '../tool.ts';
import type { ToolOutput } from '../tool.ts';
import { imageMediaType, looksBinary, sniffLength } from './file-type.ts';
import { resolvePath, workingDirectory } from './paths.ts';
import type { BuiltinToolOptions } from './paths.ts';
import { errorResult, fileErrorResult } from './results.ts';

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

/** Creates the `read_file` tool. */
export function createReadFileTool(options: ReadFileToolOptions = {}) {
  const maxImageBytes = options.maxImageBytes ?? 5 * 1024 * 1024;
  const maxTextBytes = options.maxTextBytes ?? 32 * 1024 * 1024;
  return defineTool({
    name: 'read_file',
    machine: 'read',
    description:
      'Read a file. Text comes back with line numbers (`     1\\tfirst line`); use offset and limit to read part of a ' +
      'long file. PNG, JPEG, GIF and WebP images come back as images.',
    parameters,
    async execute(args, context): Promise<ToolOutput> {
      context.signal.throwIfAborted();
      const file = resolvePath(workingDirectory(options, context), args.path);
      try {
        const info = await stat(file);
        if (info.isDirectory()) return errorResult(`${args.path} is a directory`);
        const head = await readHead(file);
        const mediaType = imageMediaType(head);
        if (mediaType !== undefined) {
          if (info.size > maxImageBytes) {
            return errorResult(`image ${args.path} is ${info.size} bytes, more than the ${maxImageBytes} bytes allowed`);
          }
          const handle = await open(file);
          const data = await handle.readFile().finally(() => handle.close());
          return {
            content: [
              { type: 'text', text: `Image ${args.path} (${mediaType}, ${info.size} bytes)` },
              { type: 'image', data: data.toString('base64'), mediaType },
            ],
          };
        }
        if (looksBinary(head)) return errorResult(`${args.path} is a binary file`);
        if (args.limit === undefined && info.size > maxTextBytes) {
          return errorResult(`${args.path} is ${info.size} bytes; read it in parts with offset and limit`);
        }
        return await readLines(file, args.path, args.offset ?? 1, args.limit, context.signal);
      } catch (error) {
        return fileErrorResult(error, args.path, context.signal);
      }
    },
  });
}

async function readHead(file: string): Promise<Buffer> {
  const handle = await open(file);
  try {
    const buffer = Buffer.alloc(sniffLength);
    const { bytesRead } = await handle.read(buffer, 0, sniffLength, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** Streams the file so that a window of a huge log costs only the lines up to it. */
async function readLines(
  file: string,
  displayPath: string,
  offset: number,
  limit: number | undefined,
  signal: AbortSignal,
): Promise<ToolOutput> {
  const stream = createReadStream(file, { encoding: 'utf8', signal });
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  const numbered: string[] = [];
  let lineNumber = 0;
  try {
    for await (const line of lines) {
      lineNumber++;
      if (lineNumber < offset) continue;
      numbered.push(`${String(lineNumber).padStart(6)}\t${line}`);
      if (limit !== undefined && numbered.length >= limit) break;
    }
  } finally {
    lines.close();
    stream.destroy();
  }
  if (lineNumber === 0) return { content: `${displayPath}: (empty file)` };
  if (numbered.length === 0) {
    return errorResult(`offset ${offset} is past the end of ${displayPath} (${lineNumber} lines)`);
  }
  return { content: numbered.join('\n') };
}
