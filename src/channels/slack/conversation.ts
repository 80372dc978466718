/**
 * Slack conversations as neutral ones: the address (channel id, thread ts) and the session key,
 * `slack:dm:<userId>`, `slack:channel:<channelId>`, with `:thread:<thread_ts>` appended for a
 * message inside a thread. A top-level channel message may start a thread of its own for the
 * reply (`slack.replyInThread`): it is then that thread's first message and its conversation the
 * thread's, so the person's replies there continue it. A direct message is keyed by the person, not by the `D…` channel, so
 * the key is the same whichever of Slack's ids for that DM an event carries.
 */
import type { ConversationAddress } from '../types.ts';

/** Where a Slack message lives, as the neutral types see it. */
export interface SlackConversation {
  address: ConversationAddress;
  scope: 'dm' | 'group';
  sessionKey: string;
}

/** What decides a message's conversation. */
export interface SlackPlace {
  /** The channel id (`C…` public, `G…` private or group DM, `D…` direct message). */
  channel: string;
  /** The event's `channel_type` (`im`, `mpim`, `channel`, `group`), when it has one. */
  channelType?: string;
  /** The person in the conversation (for a DM's session key). */
  userId: string;
  /** The `thread_ts` the message carries, if any. */
  threadTs?: string;
  /** The message's own `ts`: a thread parent carries `thread_ts === ts` and is not in a thread. */
  ts?: string;
  /** A top-level channel message is answered in a thread under it (DMs are answered where written). */
  startThread?: boolean;
}

/**
 * Where a channel's top-level messages are answered (`slack.replyInThread`): `always` in a thread
 * under the message, `mentions` so only when the message mentions the bot, `never` top-level.
 */
export type SlackReplyInThread = 'always' | 'mentions' | 'never';

/** Whether a top-level channel message is answered in a thread under it. */
export function startsThread(mode: SlackReplyInThread, mentioned: boolean): boolean {
  return mode === 'always' || (mode === 'mentions' && mentioned);
}

/** Whether a channel is a one-to-one DM: by `channel_type` when known, else by its `D` prefix. */
export function isDirectMessage(channel: string, channelType?: string): boolean {
  return channelType !== undefined ? channelType === 'im' : channel.startsWith('D');
}

/** The thread a message is in, if it is a reply in one. */
export function threadOf(threadTs: string | undefined, ts: string | undefined): string | undefined {
  return threadTs !== undefined && threadTs !== '' && threadTs !== ts ? threadTs : undefined;
}

/** The conversation of a message at `place`. */
export function conversationOf(place: SlackPlace): SlackConversation {
  const scope = isDirectMessage(place.channel, place.channelType) ? 'dm' : 'group';
  const threadId = threadOf(place.threadTs, place.ts) ?? (place.startThread && scope === 'group' ? place.ts : undefined);
  const address: ConversationAddress = { platform: 'slack', conversationId: place.channel, ...(threadId !== undefined ? { threadId } : {}) };
  const base = scope === 'dm' ? `slack:dm:${place.userId}` : `slack:channel:${place.channel}`;
  return { address, scope, sessionKey: threadId !== undefined ? `${base}:thread:${threadId}` : base };
}
