/**
 * A Discord forward: a message whose `message_reference` is of type 1 (forward) carries what was
 * forwarded in `message_snapshots` (its content, attachments), its own content empty. The agent
 * gets each snapshot's words after a line naming where it was forwarded from (see
 * `forward-line.ts`), and its files with the message's own. Discord does not say who wrote a
 * forwarded message, only the channel it was in.
 */
import type { APIAttachment, Client, GatewayMessageCreateDispatchData } from 'discord.js';
import { forwardLine } from '../forward-line.ts';

/** `message_reference.type` of a forward (0 is a reply). */
const forwardReference = 1;

/** What a forward's content is read with. */
export interface ForwardContext {
  /** A channel's name, when the client knows it. */
  channelName?(channelId: string): string | undefined;
}

/** What a message forwards: the words of each forwarded message (with its origin line) and their files. */
export interface Forwarded {
  texts: string[];
  attachments: APIAttachment[];
}

/** Where a forward came from, as people would name it. */
function originOf(message: GatewayMessageCreateDispatchData, context: ForwardContext): string | undefined {
  const from = message.message_reference?.channel_id;
  if (from === undefined) return undefined;
  const name = context.channelName?.(from);
  if (name) return `#${name}`;
  return from === message.channel_id ? 'this channel' : 'another channel';
}

/** What `message` forwards; nothing for a message that is not a forward. */
export function forwardedOf(message: GatewayMessageCreateDispatchData, context: ForwardContext): Forwarded {
  const snapshots = message.message_snapshots;
  if (message.message_reference?.type !== forwardReference || !Array.isArray(snapshots) || snapshots.length === 0) return { texts: [], attachments: [] };
  const line = forwardLine([originOf(message, context)]);
  const texts: string[] = [];
  const attachments: APIAttachment[] = [];
  for (const snapshot of snapshots) {
    const forwarded = snapshot?.message;
    if (!forwarded) continue;
    const content = typeof forwarded.content === 'string' ? forwarded.content.trim() : '';
    const files = Array.isArray(forwarded.attachments) ? forwarded.attachments : [];
    if (content === '' && files.length === 0) continue;
    texts.push(content === '' ? line : `${line}\n${content}`);
    attachments.push(...files);
  }
  return { texts, attachments };
}

/** A {@link ForwardContext.channelName} over a discord.js client's channel cache (guild channels are kept there). */
export function createChannelName(client: () => Client | undefined): (channelId: string) => string | undefined {
  return (channelId) => {
    const channel = client()?.channels.cache.get(channelId);
    return channel && 'name' in channel && typeof channel.name === 'string' && channel.name !== '' ? channel.name : undefined;
  };
}
