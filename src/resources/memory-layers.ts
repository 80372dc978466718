/**
 * The memory layers of a system prompt: a memory file under its fill header, and a conversation's
 * own pair (see `src/memory/conversation-memory.ts`), read when the conversation's prompt is built.
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
 * undefined without a place or a channel (the terminal), or while both files are empty.
 */
export async function conversationMemoryLayers(
  place: ConversationMemoryPlace | undefined,
  channel: string | undefined,
  limits: { memory?: number; user?: number } = {},
): Promise<PromptParts['conversation']> {
  if (!place || channel === undefined) return undefined;
  const [memory, user] = await Promise.all([
    MemoryFile.open(place.location(channel, 'MEMORY.md'), { limit: limits.memory ?? defaultMemoryLimit, storage: place.storage }),
    MemoryFile.open(place.location(channel, 'USER.md'), { limit: limits.user ?? defaultUserLimit, storage: place.storage }),
  ]);
  const layers = { memory: memoryLayer(memory, 'CONVERSATION MEMORY'), user: memoryLayer(user, 'CONVERSATION USER') };
  return layers.memory || layers.user ? layers : undefined;
}
