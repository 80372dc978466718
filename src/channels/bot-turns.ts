/**
 * How many bots' messages in a row one chat takes (`budgets.botTurns` or `<platform>.botTurns`, with
 * `allowBots` on): two bots that each answer the other would otherwise talk without end. A
 * person's message starts the count again. A message delivered twice (a platform's retry, Slack's
 * `message` and `app_mention` of one message) counts once. Conversations are remembered up to a
 * bound, the oldest forgotten first, so memory does not grow with their number.
 */

/** The count of one conversation: bots' messages taken since a person's, and their ids. */
interface Streak {
  ids: string[];
}

/** Decides, per conversation, whether a bot's message is still taken. */
export interface BotTurns {
  /**
   * Whether to hand over message `id` of conversation `key`: a person's always (and the count
   * starts again), a bot's while fewer than the limit were taken in a row.
   */
  admit(key: string, id: string, fromBot: boolean): boolean;
}

/** Conversations remembered at most (each a few ids). */
const defaultMaxConversations = 10_000;

/** A {@link BotTurns} allowing `limit` bots' messages in a row per conversation. */
export function createBotTurns(limit: number, maxConversations = defaultMaxConversations): BotTurns {
  const streaks = new Map<string, Streak>();
  return {
    admit(key, id, fromBot) {
      if (!fromBot) {
        streaks.delete(key);
        return true;
      }
      const streak = streaks.get(key) ?? { ids: [] };
      if (streak.ids.includes(id)) return true;
      if (streak.ids.length >= limit) return false;
      streak.ids.push(id);
      // Re-inserted, so the map's order is the order of last use and the first key the oldest.
      streaks.delete(key);
      streaks.set(key, streak);
      if (streaks.size > maxConversations) streaks.delete(streaks.keys().next().value!);
      return true;
    },
  };
}

/** The default of `botTurns`: a few exchanges, then the bots wait for a person. */
export const defaultBotTurns = 5;

/**
 * `message`, unless `turns` says its chat has taken enough bots' messages in a row. Counted per
 * chat or channel, its threads together: where each top-level message opens a thread of its own
 * (Slack's `replyInThread`), a bot posting at the top level would otherwise start at zero each
 * time. A person's message anywhere in the chat starts the count again.
 */
export function admitted<T extends { dedupeKey: string; address: { platform: string; conversationId: string }; sender: { isBot?: boolean } }>(message: T, turns: BotTurns | undefined): T | undefined {
  if (!turns) return message;
  return turns.admit(`${message.address.platform}:${message.address.conversationId}`, message.dedupeKey, message.sender.isBot === true) ? message : undefined;
}
