/** The `write_file` tool: creates or replaces a whole file. */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { defineTool } from '../tool.ts';
import type { ToolOutput } from '../tool.ts';
import { resolvePath, workingDirectory } from './paths.ts';
import type { BuiltinToolOptions } from './paths.ts';
import { fileErrorResult } from './results.ts';
import { readCurrent } from '../changes/read-current.ts';

const parameters = z.object({
  path: z.string().min(1).describe('Absolute path, or path relative to the working directory.'),
  content: z.string().describe('The full content to write.'),
});

/** Creates the `write_file` tool. Missing parent directories are created. */
export function createWriteFileTool(options: BuiltinToolOptions = {}) {
  return defineTool({
    name: 'write_file',
    machine: 'write',
    description:
      'Create a file or replace its whole content. Parent directories are created as needed. ' +
      'To change part of an existing file, prefer edit_file.',
    parameters,
    async execute(args, context): Promise<ToolOutput> {
      context.signal.throwIfAborted();
      const file = resolvePath(workingDirectory(options, context), args.path);
      try {
        const before = context.changes ? await readCurrent(file) : null;
        await mkdir(path.dirname(file), { recursive: true });
        await writeFile(file, args.content, 'utf8');
        await context.changes?.record({ path: file, before, after: args.content, tool: 'write_file' });
        return { content: `Successfully wrote to ${args.path}` };
      } catch (error) {
        return fileErrorResult(error, args.path, context.signal);
      }
    },
  });
}
