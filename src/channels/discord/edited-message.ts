/**
 * A Discord message its author edited (MESSAGE_UPDATE with a new `edited_timestamp`) as an
 * {@link InboundMessage} marked `edited`: handed over only where the gateway asks for edits
 * (`editedMessages`). Discord sends MESSAGE_UPDATE for much else too (a link's embed unfurled, a
 * thread opened on the message, a pin): without `edited_timestamp` it is no edit.
 */
import type { GatewayMessageCreateDispatchData, GatewayMessageUpdateDispatchData } from 'discord.js';
import type { GroupRef, InboundMessage } from '../types.ts';
import type { DiscordConversation } from './conversation.ts';
import { toInboundMessage, type InboundContext } from './inbound.ts';

/** Whether a MESSAGE_UPDATE is its author's edit (Discord stamps each edit; an unfurl is not one). */
export function isEdit(update: GatewayMessageUpdateDispatchData): boolean {
  return typeof update.edited_timestamp === 'string' && update.edited_timestamp !== '' && update.author !== undefined;
}

/** The edit `update` carries, as the message it now is, or undefined when it is none (or nothing to answer). */
export function toEditedMessage(update: GatewayMessageUpdateDispatchData, conversation: DiscordConversation, context: InboundContext, group?: GroupRef): InboundMessage | undefined {
  if (!isEdit(update)) return undefined;
  // Since API v10 an update carries the whole message, as a create does.
  const made = toInboundMessage(update as GatewayMessageCreateDispatchData, conversation, context, group);
  if (!made) return undefined;
  // A new wording, never a command; keyed by the edit, so each edit is its own delivery.
  const { command: _command, ...edited } = made;
  return { ...edited, edited: true, dedupeKey: `discord:edit:${update.id}:${update.edited_timestamp}` };
}
