/** The `edit_file` tool: exact search and replace inside one file, read and written by the turn's file worker. */
import * as z from 'zod';
import { turnFiles, workerErrorResult } from '../files/turn-files.ts';
import { defineTool } from '../tool.ts';
import type { ToolOutput } from '../tool.ts';
import { fileAccessOf, resolvePath, workingDirectory } from './paths.ts';
import type { BuiltinToolOptions } from './paths.ts';
import { errorResult } from './results.ts';

const parameters = z.object({
  path: z.string().min(1).describe('Absolute path, or path relative to the working directory.'),
  old_string: z.string().min(1).describe('Exact text to find. Must occur once unless replace_all is true.'),
  new_string: z.string().describe('Replacement text.'),
  replace_all: z.boolean().optional().describe('Replace every occurrence. Default: false.'),
});

/** Creates the `edit_file` tool. */
export function createEditFileTool(options: BuiltinToolOptions = {}) {
  return defineTool({
    name: 'edit_file',
    machine: 'write',
    description:
      'Replace exact text in a file. old_string must match the file exactly (including indentation) and be ' +
      'unique unless replace_all is true; include surrounding lines to make it unique.',
    parameters,
    async execute(args, context): Promise<ToolOutput> {
      context.signal.throwIfAborted();
      const cwd = workingDirectory(options, context);
      const file = resolvePath(cwd, args.path);
      const files = turnFiles(fileAccessOf(options), context, cwd);
      try {
        const content = (await files.call<{ content: string | null }>('readText', { path: file })).content;
        if (content === null) return errorResult(`file not found: ${args.path}`);
        let oldString = args.old_string;
        let newString = args.new_string;
        let count = countOccurrences(content, oldString);
        // Models write `\n`; a CRLF file would otherwise never match a multi-line old_string.
        if (count === 0 && content.includes('\r\n') && oldString.includes('\n') && !oldString.includes('\r')) {
          oldString = oldString.replaceAll('\n', '\r\n');
          newString = newString.replaceAll(/\r?\n/g, '\r\n');
          count = countOccurrences(content, oldString);
        }
        if (count === 0) return errorResult(`old_string not found in ${args.path}`);
        if (count > 1 && !args.replace_all) {
          return errorResult(`old_string found ${count} times in ${args.path}. Provide more context to make it unique.`);
        }
        const index = content.indexOf(oldString);
        const updated = args.replace_all
          ? content.split(oldString).join(newString)
          : content.slice(0, index) + newString + content.slice(index + oldString.length);
        await files.call('write', { path: file, content: updated });
        await context.changes?.record({ path: file, before: content, after: updated, tool: 'edit_file' });
        return { content: count > 1 ? `Successfully edited ${args.path} (${count} replacements)` : `Successfully edited ${args.path}` };
      } catch (error) {
        return workerErrorResult(error, args.path, `editing ${args.path}`, context.signal);
      }
    },
  });
}

/** Non-overlapping occurrences, the ones a replace-all would change. */
function countOccurrences(text: string, search: string): number {
  let count = 0;
  for (let index = text.indexOf(search); index !== -1; index = text.indexOf(search, index + search.length)) count++;
  return count;
}
