/**
 * The speaker's notes ride along. In a seat other than the owner's, what the agent keeps about a
 * person (their USER notes) goes with each model call of their own turns as one more user message,
 * for that call alone: never written to the session, so the next person's turn in the same group
 * does not carry it, and never in the system prompt, which stays byte for byte the same whoever
 * speaks (the provider's prompt cache keeps serving it).
 */
import type { Message } from '../llm/types.ts';
import type { TurnContext } from '../tools/tool.ts';
import type { AgentResources } from './agent-options.ts';

/** The notes message of `turn`'s speaker, or none (an owner's turn, no notes, no resources). */
export async function speakerNotesMessages(resources: Pick<AgentResources, 'speakerNotes'> | undefined, turn: TurnContext | undefined): Promise<Message[]> {
  if (!turn || turn.owner === true || !resources?.speakerNotes) return [];
  const text = await resources.speakerNotes(turn);
  return text ? [{ role: 'user', content: [{ type: 'text', text }], timestamp: Date.now() }] : [];
}
