/**
 * The bot joining a Slack channel as a {@link GroupJoin}: a `member_joined_channel` event (the
 * app subscribes to it) whose `user` is the bot. It carries `inviter` when someone invited the bot
 * (`/invite @bot`, "Add apps"): an admin there approves the channel. Without an inviter (the bot
 * joined by itself, or at install time) nobody is named, and the channel waits for a code. (The
 * `channel_join` message Slack also posts names the inviter too, but comes from the bot's own
 * user, which bolt drops before any handler.)
 */
import type { GroupJoin } from '../types.ts';
import { conversationOf, isDirectMessage } from './conversation.ts';
import type { SlackIdentity } from './inbound.ts';

/** The fields of a `member_joined_channel` event read here. */
export interface SlackJoinEvent {
  type: string;
  user?: string;
  channel?: string;
  /** `C` public, `G` private. */
  channel_type?: string;
  inviter?: string;
  event_ts?: string;
}

/** The bot's joining of a channel, or undefined when `event` is not that (someone else joined). */
export function toGroupJoin(event: SlackJoinEvent, bot: Pick<SlackIdentity, 'userId'>): GroupJoin | undefined {
  if (event.type !== 'member_joined_channel' || event.user !== bot.userId || !event.channel) return undefined;
  if (isDirectMessage(event.channel)) return undefined;
  const conversation = conversationOf({ channel: event.channel, channelType: 'channel', userId: bot.userId });
  const at = event.event_ts ?? '';
  return {
    dedupeKey: `slack:joined:${event.channel}:${at}`,
    address: conversation.address,
    sessionKey: conversation.sessionKey,
    group: { kind: 'channel', id: event.channel },
    ...(event.inviter ? { by: { id: event.inviter, isBot: false } } : {}),
    raw: event,
  };
}
