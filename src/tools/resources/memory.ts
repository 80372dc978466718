/**
 * The `memory` tool: adds, replaces and removes entries of a memory file pair. In the owner's
 * seats (and where there is no turn context: the terminal) they are the active profile's MEMORY.md
 * (target `memory`) and USER.md (target `user`), which every conversation of the profile reads.
 * In any other seat, `memory` is that conversation's own MEMORY.md and `user` the notes about the
 * person whose turn it is, shown in that person's turns only: the profile's files are read-only
 * there (see `owner-turn.ts` for why). Also the tool of the background reviewer and the memory
 * flush, whose children work under the reviewed conversation's turn.
 *
 * Every change is recorded with its source (see `src/memory/memory-journal.ts`). What the agent
 * wants to save in a turn that read untrusted content (a web page, another bot) is held apart
 * instead, never shown to the model, until a person keeps it (`/memory keep`).
 */
import * as z from 'zod';
import { errorMessage } from '../../core/errors.ts';
import { MemoryError, changeEntry, defaultMemoryLimit, defaultUserLimit, heldOf, memoryHeader } from '../../memory/index.ts';
import type { ConversationMemoryPlace, EntryChange, MemoryLabel, MemoryShelf, MemorySource, MemoryStorage } from '../../memory/index.ts';
import { defineTool } from '../tool.ts';
import type { ToolOutput, TurnContext } from '../tool.ts';
import { untrustedContent } from '../turn-taint.ts';
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
   * is the session key when the change was to that conversation's own memory or a person's notes.
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
   * Where each conversation's own memory and each person's notes are kept, for the writes of seats
   * other than the owner's. Unset: those writes are refused (the profile's memory stays read-only
   * there all the same).
   */
  conversation?: ConversationMemoryPlace;
}

const parameters = z.object({
  action: z.enum(['add', 'replace', 'remove']).describe('add a new entry, replace part of one, or remove one.'),
  target: z.enum(['memory', 'user']).describe('memory: facts about the team and the work. user: notes about the person whose turn it is.'),
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
  '- target "user": notes about the person whose turn it is, from what they said: name, role, time zone,',
  '  preferences, how they like answers. Shown in that person\'s turns only; never put other people there.',
  'Every change is recorded with where it came from. In a turn that read a web page, files others sent or another',
  'bot\'s message, additions are held apart until a person keeps them.',
  'Keep each entry short (one or two sentences), specific and true beyond this conversation. Do not save task',
  'progress, things you can look up again, or secrets. Prefer replacing an outdated entry over adding a new one.',
  'Actions: add (content), replace (old_text = a unique piece of the entry, content = its full new text),',
  'remove (old_text). Exact duplicates are refused; when a file is full its oldest entries are moved to an archive.',
].join('\n');

/** One file a call edits: where it is kept and what the answer calls it. */
interface MemoryPlace extends MemoryShelf {
  label: MemoryLabel;
  /** How the answer names the target, e.g. `memory` or `this conversation's memory`. */
  shown: string;
  /** How the answer names the archive (undefined: its path). */
  archive?: string;
  /** The conversation whose own memory (or whose speaker's notes) this is. */
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
    if (target === 'user') {
      return {
        location: conversation.personLocation(`${turn.platform}:${turn.senderId}`),
        storage: conversation.storage,
        limit: limits.user,
        label: 'SPEAKER NOTES',
        shown: "the speaker's notes",
        name: "the speaker's notes",
        archive: "the archive of the speaker's notes",
        conversation: turn.sessionKey,
      };
    }
    return {
      location: conversation.location(turn.sessionKey, 'MEMORY.md'),
      storage: conversation.storage,
      limit: limits.memory,
      label: 'CONVERSATION MEMORY',
      shown: "this conversation's memory",
      name: "this conversation's MEMORY.md",
      archive: "this conversation's MEMORY.archive.md",
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
      const change = entryChange(args);
      if (typeof change === 'string') return failure(change);
      const source = memorySource(context.turn);
      try {
        const untrusted = untrustedContent(context.turn?.taint);
        if (change.action !== 'remove' && untrusted.length > 0) {
          const held = await heldOf(file).hold(change.content, { ...source, kind: source.kind === 'words' ? 'tool' : source.kind, content: untrusted.join('; ') }, (options.now ?? (() => new Date()))());
          return {
            content:
              `Not saved: this turn read untrusted content (${untrusted.join('; ')}), so "${held}" is held apart from ${file.shown}, ` +
              'out of your sight, until a person keeps it with /memory keep. Tell the person if it matters.',
          };
        }
        const { change: result, file: memory } = await changeEntry(file, change, source, options.now);
        const done =
          change.action === 'add'
            ? `Added to ${file.shown}: "${result.entry}"`
            : change.action === 'replace'
              ? `Replaced in ${file.shown}: "${result.previous}" -> "${result.entry}"`
              : `Removed from ${file.shown}: "${result.previous}"`;
        options.onChange?.(args.target, file.conversation);
        const lines = [done, memoryHeader(file.label, result.used, result.limit)];
        if (result.archived.length > 0) {
          lines.push(
            `To make room, moved the ${result.archived.length} oldest ${result.archived.length === 1 ? 'entry' : 'entries'} to ` +
              `${file.archive ?? memory.archivePath}:`,
            ...result.archived.map((entry) => `- ${entry.replace(/\n/g, ' ')}`),
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

/** The change the arguments ask for, or what is missing. */
function entryChange(args: z.infer<typeof parameters>): EntryChange | string {
  if (args.action === 'add') return args.content === undefined ? 'add needs `content`: the text of the new entry' : { action: 'add', content: args.content };
  if (args.action === 'replace') {
    return args.old_text === undefined || args.content === undefined
      ? 'replace needs `old_text` (a piece of the entry to change) and `content` (its full new text)'
      : { action: 'replace', oldText: args.old_text, content: args.content };
  }
  return args.old_text === undefined ? 'remove needs `old_text`: a piece of the entry to remove' : { action: 'remove', oldText: args.old_text };
}

/** Where a change in `turn` comes from: its people's words, or the reviewer or flush working in its name. */
function memorySource(turn: TurnContext | undefined): MemorySource {
  if (!turn) return { kind: 'words' };
  const source: MemorySource = { kind: turn.origin ?? 'words', conversation: turn.sessionKey, person: `${turn.platform}:${turn.senderId}` };
  if (turn.senderName) source.name = turn.senderName;
  if (turn.turnId) source.turn = turn.turnId;
  return source;
}

function failure(message: string): ToolOutput {
  return { content: `Error: ${message}`, isError: true };
}
