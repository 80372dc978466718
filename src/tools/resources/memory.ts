/**
 * The `memory` tool: adds, replaces and removes entries of the active profile's MEMORY.md
 * (target `memory`) and USER.md (target `user`). Also the reviewer child's tool.
 */
import { z } from 'zod';
import { errorMessage } from '../../core/errors.ts';
import { MemoryError, MemoryFile, defaultMemoryLimit, defaultUserLimit, memoryHeader } from '../../memory/index.ts';
import type { MemoryChange, MemoryStorage } from '../../memory/index.ts';
import { defineTool } from '../tool.ts';
import type { ToolOutput } from '../tool.ts';

/** Which file a call edits. */
export type MemoryTarget = 'memory' | 'user';

/** Where the files are and how full they may get. */
export interface MemoryToolOptions {
  /** The profile's MEMORY.md. */
  memoryPath: string;
  /** The profile's USER.md. */
  userPath: string;
  /** Default 2,200 characters. */
  memoryLimit?: number;
  /** Default 1,375 characters. */
  userLimit?: number;
  /** Called after every successful change, e.g. to clear the cached system prompt. */
  onChange?: (target: MemoryTarget) => void;
  /** Clock for archive headings. */
  now?: () => Date;
  /**
   * Where the two files are kept; default: files at the paths above. The Worker passes its KV
   * storage, the paths then being its keys.
   */
  storage?: MemoryStorage;
}

const parameters = z.object({
  action: z.enum(['add', 'replace', 'remove']).describe('add a new entry, replace part of one, or remove one.'),
  target: z.enum(['memory', 'user']).describe('memory: facts about the team and the work. user: notes about the person you talk with.'),
  content: z.string().optional().describe('add: the new entry. replace: the full new text of the entry.'),
  old_text: z
    .string()
    .optional()
    .describe('replace / remove: a short piece of the existing entry, enough to occur in that entry only.'),
});

const description = [
  'Save durable facts to long-term memory. Both files are shown to you at the start of every future conversation, so',
  'what you save here is what you will know next time.',
  '- target "memory": facts about the team and its work: projects, systems, conventions, decisions, who owns what,',
  '  recurring problems and their fixes (e.g. "Deploys go through #releases; never on Fridays").',
  '- target "user": notes about the person: name, role, time zone, preferences, how they like answers.',
  'Keep each entry short (one or two sentences), specific and true beyond this conversation. Do not save task',
  'progress, things you can look up again, or secrets. Prefer replacing an outdated entry over adding a new one.',
  'Actions: add (content), replace (old_text = a unique piece of the entry, content = its full new text),',
  'remove (old_text). Exact duplicates are refused; when a file is full its oldest entries are moved to an archive.',
].join('\n');

/** Creates the `memory` tool over the two files of one profile. */
export function createMemoryTool(options: MemoryToolOptions) {
  const files: Record<MemoryTarget, { path: string; limit: number; label: 'MEMORY' | 'USER' }> = {
    memory: { path: options.memoryPath, limit: options.memoryLimit ?? defaultMemoryLimit, label: 'MEMORY' },
    user: { path: options.userPath, limit: options.userLimit ?? defaultUserLimit, label: 'USER' },
  };
  return defineTool({
    name: 'memory',
    machine: 'none',
    description,
    parameters,
    async execute(args, context): Promise<ToolOutput> {
      context.signal.throwIfAborted();
      const file = files[args.target];
      try {
        const memory = await MemoryFile.open(file.path, { limit: file.limit, now: options.now, storage: options.storage });
        let change: MemoryChange;
        let done: string;
        if (args.action === 'add') {
          if (args.content === undefined) return failure('add needs `content`: the text of the new entry');
          change = await memory.add(args.content);
          done = `Added to ${args.target}: "${change.entry}"`;
        } else if (args.action === 'replace') {
          if (args.old_text === undefined || args.content === undefined) {
            return failure('replace needs `old_text` (a piece of the entry to change) and `content` (its full new text)');
          }
          change = await memory.replace(args.old_text, args.content);
          done = `Replaced in ${args.target}: "${change.previous}" -> "${change.entry}"`;
        } else {
          if (args.old_text === undefined) return failure('remove needs `old_text`: a piece of the entry to remove');
          change = await memory.remove(args.old_text);
          done = `Removed from ${args.target}: "${change.previous}"`;
        }
        options.onChange?.(args.target);
        const lines = [done, memoryHeader(file.label, change.used, change.limit)];
        if (change.archived.length > 0) {
          lines.push(
            `To make room, moved the ${change.archived.length} oldest ${change.archived.length === 1 ? 'entry' : 'entries'} to ` +
              `${memory.archivePath}:`,
            ...change.archived.map((entry) => `- ${entry.replace(/\n/g, ' ')}`),
          );
        }
        return { content: lines.join('\n') };
      } catch (error) {
        context.signal.throwIfAborted();
        return failure(error instanceof MemoryError ? error.message : `could not update ${file.path}: ${errorMessage(error)}`);
      }
    },
  });
}

function failure(message: string): ToolOutput {
  return { content: `Error: ${message}`, isError: true };
}
