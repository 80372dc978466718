/** The `write_file` tool: creates or replaces a whole file, through the turn's file worker. */
import * as z from 'zod';
import { turnFiles, workerErrorResult } from '../files/turn-files.ts';
import { defineTool } from '../tool.ts';
import type { ToolOutput } from '../tool.ts';
import { fileAccessOf, resolvePath, workingDirectory } from './paths.ts';
import type { BuiltinToolOptions } from './paths.ts';

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
      const cwd = workingDirectory(options, context);
      const file = resolvePath(cwd, args.path);
      const files = turnFiles(fileAccessOf(options), context, cwd);
      try {
        // What the file held comes back from the same call, for the change log.
        const written = await files.call<{ before?: string | null }>('write', { path: file, content: args.content, keepBefore: context.changes !== undefined });
        await context.changes?.record({ path: file, before: written.before ?? null, after: args.content, tool: 'write_file' });
        return { content: `Successfully wrote to ${args.path}` };
      } catch (error) {
        return workerErrorResult(error, args.path, `writing ${args.path}`, context.signal);
      }
    },
  });
}
