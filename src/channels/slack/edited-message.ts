/**
 * A Slack message its sender edited (`message` event, subtype `message_changed`, with the new
 * version's `edited` mark) as an {@link InboundMessage} marked `edited`: handed over only where the
 * gateway asks for edits (`editedMessages`). Slack sends `message_changed` for much else too (a
 * link unfurled, an attachment added by an app): without `edited`, or with the words unchanged,
 * it is no edit.
 */
import type { InboundMessage } from '../types.ts';
import { toInboundMessage, type InboundContext, type SlackMessageEvent } from './inbound.ts';

/** A `message_changed` event: the message as it is now, and as it was. */
export interface SlackChangedEvent extends SlackMessageEvent {
  message?: SlackMessageEvent & { edited?: { user?: string; ts: string } };
  previous_message?: { text?: string };
}

/** The edit `event` carries, or undefined when it carries none (or nothing to answer). */
export function toEditedMessage(event: SlackChangedEvent, context: InboundContext): InboundMessage | undefined {
  const now = event.message;
  if (event.type !== 'message' || event.subtype !== 'message_changed' || !now?.edited) return undefined;
  if ((now.text ?? '') === (event.previous_message?.text ?? '')) return undefined;
  // The inner message lacks its channel: it is the event's.
  const made = toInboundMessage({ ...now, type: 'message', channel: event.channel, channel_type: event.channel_type }, context);
  if (!made) return undefined;
  // A new wording, never a command; keyed by the edit, so each edit is its own delivery.
  const { command: _command, ...edited } = made;
  return { ...edited, edited: true, dedupeKey: `slack:edit:${event.channel}:${now.ts}:${now.edited.ts}` };
}
