/**
 * The memory layers of a system prompt: a memory file under its fill header, and a conversation's
 * own memory (see `src/memory/conversation-memory.ts`), read when the conversation's prompt is
 * built; and the notes about a turn's speaker, which ride along with the turn's model calls
 * instead (see `src/agent/speaker-notes.ts`).
 */
import { MemoryFile, defaultMemoryLimit, defaultUserLimit, memoryHeader } from '../memory/index.ts';
import type { ConversationMemoryPlace, MemoryLabel } from '../memory/index.ts';
import type { MemoryLayer, PromptParts } from './prompt-assembly.ts';

/** `file` under its header (`MEMORY [3% - 60/2,200 chars]`), or undefined while it has no entry. */
export function memoryLayer(file: MemoryFile, label: MemoryLabel): MemoryLayer | undefined {
  return file.entries.length > 0 ? { header: memoryHeader(label, file.used, file.limit), text: file.text } : undefined;
}

/**
 * The own memory of the conversation `channel` (its session key) kept in `place`, for its prompt;
 * undefined without a place or a channel (the terminal), or while it is empty. A direct
 * conversation's USER.md, where notes about its one person were kept before each person had their
 * own, is shown there still; a group's is not, since it mixed the notes of everyone in the group
 * (`/memory` lists it for an admin to clear).
 */
export async function conversationMemoryLayers(
  place: ConversationMemoryPlace | undefined,
  channel: string | undefined,
  limits: { memory?: number; user?: number } = {},
): Promise<PromptParts['conversation']> {
  if (!place || channel === undefined) return undefined;
  const direct = isDirectChannel(channel);
  const [memory, user] = await Promise.all([
    MemoryFile.open(place.location(channel, 'MEMORY.md'), { limit: limits.memory ?? defaultMemoryLimit, storage: place.storage }),
    direct ? MemoryFile.open(place.location(channel, 'USER.md'), { limit: limits.user ?? defaultUserLimit, storage: place.storage }) : undefined,
  ]);
  const layers = { memory: memoryLayer(memory, 'CONVERSATION MEMORY'), user: user && memoryLayer(user, 'CONVERSATION USER') };
  return layers.memory || layers.user ? layers : undefined;
}

/** Whether the session key `channel` is a direct conversation (`telegram:dm:42`). */
export function isDirectChannel(channel: string): boolean {
  return channel.split(':')[1] === 'dm';
}

/**
 * The ride-along text of the notes about `person` (`platform:id`) kept in `place`, or undefined
 * while there are none. The notes are the model's own writing about that person, framed so that
 * nothing in them closes the frame.
 */
export async function speakerNotesText(place: ConversationMemoryPlace | undefined, person: string, limit = defaultUserLimit): Promise<string | undefined> {
  if (!place) return undefined;
  const notes = await MemoryFile.open(place.personLocation(person), { limit, storage: place.storage });
  const layer = memoryLayer(notes, 'SPEAKER NOTES');
  if (!layer) return undefined;
  return [
    '<speaker_notes>',
    `${layer.header}: what you keep about the person whose turn this is (shown in their turns only; edit with the memory tool, target "user")`,
    layer.text.trim().replace(/<(\/?)speaker_notes>/gi, '<\\$1speaker_notes>'),
    '</speaker_notes>',
  ].join('\n');
}
