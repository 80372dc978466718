/**
 * Discord channels as neutral conversations. A DM is `discord:dm:<userId>` (address: the DM
 * channel), a guild text channel `discord:channel:<channelId>`, and a thread its own
 * conversation, `discord:channel:<parentId>:thread:<threadId>`, addressed as
 * `{ conversationId: parentId, threadId }`; messages to it go to the thread's own channel id.
 */
import type { ConversationAddress } from '../types.ts';

/** What the adapter knows of the channel a message came from. */
export type ChannelKind = { kind: 'dm'; userId: string } | { kind: 'channel' } | { kind: 'thread'; parentId: string };

/** Where a Discord message lives, as the neutral types see it. */
export interface DiscordConversation {
  address: ConversationAddress;
  scope: 'dm' | 'group';
  sessionKey: string;
}

/** The conversation of channel `channelId` of the given kind. */
export function conversationOf(channelId: string, channel: ChannelKind): DiscordConversation {
  if (channel.kind === 'dm') {
    return { address: { platform: 'discord', conversationId: channelId }, scope: 'dm', sessionKey: `discord:dm:${channel.userId}` };
  }
  if (channel.kind === 'thread') {
    return {
      address: { platform: 'discord', conversationId: channel.parentId, threadId: channelId },
      scope: 'group',
      sessionKey: `discord:channel:${channel.parentId}:thread:${channelId}`,
    };
  }
  return { address: { platform: 'discord', conversationId: channelId }, scope: 'group', sessionKey: `discord:channel:${channelId}` };
}

/** The Discord channel id messages to `address` go to (a thread's own id). */
export function channelIdOf(address: ConversationAddress): string {
  return address.threadId ?? address.conversationId;
}

/** Discord's thread channel types (announcement, public, private thread). */
export const threadChannelTypes: ReadonlySet<number> = new Set([10, 11, 12]);
