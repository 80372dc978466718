/**
 * The `memory` tool: adds, replaces and removes entries of a memory file pair. In the owner's
 * seats (and where there is no turn context: the terminal) they are the active profile's MEMORY.md
 * (target `memory`) and USER.md (target `user`), which every conversation of the profile reads.
 * In any other seat they are that conversation's own pair, shown in its prompt only: the profile's
 * files are read-only there (see `owner-turn.ts` for why). Also the tool of the background
 * reviewer and the memory flush, whose children work under the reviewed conversation's turn.
 */
import * as z from 'zod';
import { errorMessage } from '../../core/errors.ts';
import { MemoryError, MemoryFile, defaultMemoryLimit, defaultUserLimit, memoryHeader } from '../../memory/index.ts';
import type { ConversationMemoryPlace, MemoryChange, MemoryLabel, MemoryStorage } from '../../memory/index.ts';
import { defineTool } from '../tool.ts';
import type { ToolOutput, TurnContext } from '../tool.ts';
import { isOwnerTurn } from './owner-turn.ts';

/** Which file a call edits. */
export type MemoryTarget = 'memory' | 'user';

/** Where the files are and how full they may get. */
export interface MemoryToolOptions {
  /** The profile's MEMORY.md. */
  memoryPath: string;
  /** The profile's USER.md. */
  userPath: string;
  /** Default 2,200 characters (a conversation's own MEMORY.md too). */
  memoryLimit?: number;
  /** Default 1,375 characters (a conversation's own USER.md too). */
  userLimit?: number;
  /**
   * Called after every successful change, e.g. to clear the cached system prompt; `conversation`
   * is the session key when the change was to that conversation's own memory.
   */
  onChange?: (target: MemoryTarget, conversation?: string) => void;
  /** Clock for archive headings. */
  now?: () => Date;
  /**
   * Where the two files are kept; default: files at the paths above. The Worker passes its KV
   * storage, the paths then being its keys.
   */
  storage?: MemoryStorage;
  /**
   * Where each conversation's own memory is kept, for the writes of seats other than the owner's.
   * Unset: those writes are refused (the profile's memory stays read-only there all the same).
   */
  conversation?: ConversationMemoryPlace;
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
  'Save durable facts to long-term memory. What you save is shown to you at the start of every later turn and',
  'conversation where this memory applies, so it is what you will know next time. In the owner\'s own conversations',
  'this is the profile\'s memory (every conversation with this profile reads it); anywhere else it is this',
  'conversation\'s own memory, shown in this conversation only, and the profile\'s memory is read-only.',
  '- target "memory": facts about the team and its work: projects, systems, conventions, decisions, who owns what,',
  '  recurring problems and their fixes (e.g. "Deploys go through #releases; never on Fridays").',
  '- target "user": notes about the person: name, role, time zone, preferences, how they like answers.',
  'Keep each entry short (one or two sentences), specific and true beyond this conversation. Do not save task',
  'progress, things you can look up again, or secrets. Prefer replacing an outdated entry over adding a new one.',
  'Actions: add (content), replace (old_text = a unique piece of the entry, content = its full new text),',
  'remove (old_text). Exact duplicates are refused; when a file is full its oldest entries are moved to an archive.',
].join('\n');

/** One file a call edits: where it is kept and what the answer calls it. */
interface MemoryPlace {
  location: string;
  storage: MemoryStorage | undefined;
  limit: number;
  label: MemoryLabel;
  /** How the answer names the target, e.g. `memory` or `this conversation's memory`. */
  shown: string;
  /** What error messages call the file (undefined: its base name). */
  name?: string;
  /** How the answer names the archive (undefined: its path). */
  archive?: string;
  /** The conversation whose own memory this is. */
  conversation?: string;
}

/** Creates the `memory` tool over the two files of one profile (and each conversation's own). */
export function createMemoryTool(options: MemoryToolOptions) {
  const limits: Record<MemoryTarget, number> = {
    memory: options.memoryLimit ?? defaultMemoryLimit,
    user: options.userLimit ?? defaultUserLimit,
  };
  const profile: Record<MemoryTarget, MemoryPlace> = {
    memory: { location: options.memoryPath, storage: options.storage, limit: limits.memory, label: 'MEMORY', shown: 'memory' },
    user: { location: options.userPath, storage: options.storage, limit: limits.user, label: 'USER', shown: 'user' },
  };
  /** The file of `target` for this turn's seat, or why it cannot be written. */
  const placeOf = (target: MemoryTarget, turn: TurnContext | undefined): MemoryPlace | string => {
    if (isOwnerTurn(turn)) return profile[target];
    const conversation = options.conversation;
    if (!conversation || !turn) {
      return "memory is read-only in this conversation: the profile's memory is written from the owner's own conversations only";
    }
    const file = target === 'memory' ? 'MEMORY.md' : 'USER.md';
    return {
      location: conversation.location(turn.sessionKey, file),
      storage: conversation.storage,
      limit: limits[target],
      label: target === 'memory' ? 'CONVERSATION MEMORY' : 'CONVERSATION USER',
      shown: target === 'memory' ? "this conversation's memory" : "this conversation's user notes",
      name: `this conversation's ${file}`,
      archive: `this conversation's ${file.replace('.md', '.archive.md')}`,
      conversation: turn.sessionKey,
    };
  };
  return defineTool({
    name: 'memory',
    machine: 'none',
    description,
    parameters,
    async execute(args, context): Promise<ToolOutput> {
      context.signal.throwIfAborted();
      const file = placeOf(args.target, context.turn);
      if (typeof file === 'string') return failure(file);
      try {
        const memory = await MemoryFile.open(file.location, { limit: file.limit, now: options.now, storage: file.storage, name: file.name });
        let change: MemoryChange;
        let done: string;
        if (args.action === 'add') {
          if (args.content === undefined) return failure('add needs `content`: the text of the new entry');
          change = await memory.add(args.content);
          done = `Added to ${file.shown}: "${change.entry}"`;
        } else if (args.action === 'replace') {
          if (args.old_text === undefined || args.content === undefined) {
            return failure('replace needs `old_text` (a piece of the entry to change) and `content` (its full new text)');
          }
          change = await memory.replace(args.old_text, args.content);
          done = `Replaced in ${file.shown}: "${change.previous}" -> "${change.entry}"`;
        } else {
          if (args.old_text === undefined) return failure('remove needs `old_text`: a piece of the entry to remove');
          change = await memory.remove(args.old_text);
          done = `Removed from ${file.shown}: "${change.previous}"`;
        }
        options.onChange?.(args.target, file.conversation);
        const lines = [done, memoryHeader(file.label, change.used, change.limit)];
        if (change.archived.length > 0) {
          lines.push(
            `To make room, moved the ${change.archived.length} oldest ${change.archived.length === 1 ? 'entry' : 'entries'} to ` +
              `${file.archive ?? memory.archivePath}:`,
            ...change.archived.map((entry) => `- ${entry.replace(/\n/g, ' ')}`),
          );
        }
        return { content: lines.join('\n') };
      } catch (error) {
        context.signal.throwIfAborted();
        return failure(error instanceof MemoryError ? error.message : `could not update ${file.name ?? file.location}: ${errorMessage(error)}`);
      }
    },
  });
}

function failure(message: string): ToolOutput {
  return { content: `Error: ${message}`, isError: true };
}
