/**
 * A group the platform moved (a Telegram group upgraded to a supergroup, which gets a new id)
 * keeps its conversation: the new session key is pointed at the old key's current session, so
 * the history goes on where it was, and the conversation's own model and thinking choices and
 * its hour's allowances (tools allowed unasked) come along; what else was set for the chat moves
 * too (`moved-chat.ts`). Nothing is copied or deleted: both keys name the same session, and the old group can
 * take no more messages. A new key that already holds a conversation keeps it.
 */
import type { SessionManager } from '../../session/session-manager.ts';
import type { Store } from '../../store/store.ts';
import { allowancesKey } from '../approvals.ts';
import { modelChoiceKey, thinkingChoiceKey } from '../conversations.ts';

/** What carrying a conversation works with. */
export interface MovedConversationParts {
  sessions: Pick<SessionManager, 'list' | 'switchSession'>;
  store: Pick<Store, 'get' | 'set'>;
}

/**
 * Makes the conversation at session key `from` go on at `to`; resolves to whether it did (false:
 * `from` had none, or `to` already has one of its own).
 */
export async function carryConversation(parts: MovedConversationParts, from: string, to: string): Promise<boolean> {
  if (from === to) return false;
  const old = (await parts.sessions.list(from)).find((session) => session.current);
  if (!old || old.messageCount === 0) return false;
  if ((await parts.sessions.list(to)).some((session) => session.messageCount > 0)) return false;
  for (const key of [modelChoiceKey, thinkingChoiceKey, allowancesKey]) {
    const choice = await parts.store.get<unknown>(key(from));
    if (choice !== null && (await parts.store.get<unknown>(key(to))) === null) await parts.store.set(key(to), choice);
  }
  await parts.sessions.switchSession(to, old.id);
  return true;
}
