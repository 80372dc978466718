/** A conversation's earlier messages as a chat shows them (the web chat on reload). */
import type { SessionTree } from '../session/session-tree.ts';

/** The person's and the bot's messages on the session's current branch, oldest first, text only. */
export function sessionHistory(tree: SessionTree): { role: 'user' | 'assistant'; text: string }[] {
  return tree
    .buildContext()
    .messages.filter((message) => message.role !== 'tool')
    .map((message) => ({
      role: message.role as 'user' | 'assistant',
      text: message.content.map((part) => (part.type === 'text' ? part.text : '')).join(''),
    }))
    .filter((message) => message.text.trim().length > 0);
}
