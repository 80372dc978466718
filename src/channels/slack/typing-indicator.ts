/**
 * Slack has no typing indicator for bots on the Events API, so "working" is shown as a reaction
 * on the person's latest message in the conversation, added once per turn and taken down when the
 * turn ends. The latest inbound message of each conversation is remembered in a small map,
 * bounded by dropping the oldest conversation.
 */
import type { ConversationAddress } from '../types.ts';

/** Where the indicator reaction sits. */
export interface ReactionTarget {
  channel: string;
  timestamp: string;
}

interface ConversationState {
  latestTs: string;
  /** The message the reaction is on now, if it is shown. */
  reactedTs?: string;
}

/** The bookkeeping of the reaction indicator. */
export interface TypingIndicator {
  /** Notes a person's message, the one the next turn's reaction goes on. */
  remember(address: ConversationAddress, ts: string): void;
  /**
   * The message to react to now, taken as shown (one attempt per turn, even if it fails), or
   * undefined when the turn has its reaction already or there is no message to react to.
   */
  startTarget(address: ConversationAddress): ReactionTarget | undefined;
  /** The reaction to take down, forgetting it, or undefined when none is shown. */
  stopTarget(address: ConversationAddress): ReactionTarget | undefined;
}

function keyOf(address: ConversationAddress): string {
  return `${address.conversationId}:${address.threadId ?? ''}`;
}

/** A {@link TypingIndicator} remembering at most `capacity` conversations. */
export function createTypingIndicator(capacity = 1_000): TypingIndicator {
  const conversations = new Map<string, ConversationState>();
  return {
    remember(address, ts) {
      const key = keyOf(address);
      const state = conversations.get(key);
      conversations.delete(key);
      conversations.set(key, { ...state, latestTs: ts });
      if (conversations.size > capacity) conversations.delete(conversations.keys().next().value!);
    },
    startTarget(address) {
      const state = conversations.get(keyOf(address));
      if (!state || state.reactedTs !== undefined) return undefined;
      state.reactedTs = state.latestTs;
      return { channel: address.conversationId, timestamp: state.latestTs };
    },
    stopTarget(address) {
      const state = conversations.get(keyOf(address));
      if (!state || state.reactedTs === undefined) return undefined;
      const target = { channel: address.conversationId, timestamp: state.reactedTs };
      delete state.reactedTs;
      return target;
    },
  };
}
