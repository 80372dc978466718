/**
 * The bot leaving a Slack channel as a {@link MembershipChange}: `channel_left` (a public
 * channel) and `group_left` (a private one), which Slack sends to the bot about itself, and a
 * `member_left_channel` whose `user` is the bot (removed by someone, or by `/kick`). A person
 * leaving is not this. Slack has no blocking of a bot in a direct message, so only `removed` comes
 * from here.
 */
import type { MembershipChange } from '../types.ts';
import type { SlackIdentity } from './inbound.ts';

/** The fields of a `channel_left`, `group_left` or `member_left_channel` event read here. */
export interface SlackLeaveEvent {
  type: string;
  channel?: string;
  /** `member_left_channel`: who left. */
  user?: string;
  event_ts?: string;
}

/** The event types this reads. */
export const slackLeaveEvents = ['channel_left', 'group_left', 'member_left_channel'] as const;

/** The bot's leaving of a channel, or undefined when `event` is not that (someone else left). */
export function toMembershipChange(event: SlackLeaveEvent, bot: Pick<SlackIdentity, 'userId'>): MembershipChange | undefined {
  if (!event.channel || !(slackLeaveEvents as readonly string[]).includes(event.type)) return undefined;
  if (event.type === 'member_left_channel' && event.user !== bot.userId) return undefined;
  return {
    dedupeKey: `slack:left:${event.channel}:${event.event_ts ?? ''}`,
    platform: 'slack',
    kind: 'removed',
    conversationIds: [event.channel],
    label: `slack:channel:${event.channel}`,
    raw: event,
  };
}
