/**
 * Messages an earlier process accepted and never answered, answered after a restart: each as the
 * message it was, and, when its turn had begun, as a request to answer it rather than a repeat.
 */
import type { InboundMessage } from '../channels/types.ts';
import type { Message } from '../llm/types.ts';
import type { InboxEntry } from './inbox.ts';

/** Messages accepted longer ago than this are not answered after a restart. */
export const inboxReplayHours = 24;

/** How many of a session's last messages are searched for a replayed message. */
const replayLookback = 12;

/** What the model is told when a turn is run again after a restart. */
const restartNote = '[operator: the gateway restarted before the answer to the message above was delivered. Please answer it now.]';

/** An inbox entry as the message it was (without attachments, whose bytes were not kept). */
export function replayedMessage(entry: InboxEntry): InboundMessage {
  return {
    id: entry.messageId,
    dedupeKey: entry.dedupeKey,
    sessionKey: entry.sessionKey,
    address: entry.address,
    scope: entry.scope,
    sender: entry.sender,
    text: entry.text,
    attachments: [],
    mentioned: true,
    receivedAt: entry.receivedAt,
    raw: undefined,
  };
}

/**
 * The input for a message accepted by an earlier process that stopped before answering, given
 * the session's messages. When its turn had begun, the session already holds the message: the
 * model is asked to answer it (and sees whatever the interrupted turn did). Otherwise the text
 * goes in as it came, with a note for attachments, whose bytes were not kept.
 */
export function replayInput(messages: readonly Message[], entry: InboxEntry): string {
  const recent = messages.slice(-replayLookback);
  const begun = entry.text !== '' && recent.some((item) => item.role === 'user' && item.content.some((part) => part.type === 'text' && part.text.startsWith(entry.text)));
  if (begun) return restartNote;
  const lost = entry.attachments.map((attachment) => `[${attachment.kind === 'image' ? 'an image' : `the file ${attachment.name ?? ''}`.trim()} came with this message but was lost in a restart; ask for it again if it matters]`);
  return [entry.text, ...lost].filter((part) => part !== '').join('\n');
}
