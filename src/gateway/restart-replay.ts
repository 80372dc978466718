/**
 * Messages an earlier process accepted and never answered, answered after a restart: each as the
 * message it was.
 */
import type { InboundMessage } from '../channels/types.ts';
import type { SessionTree } from '../session/session-tree.ts';
import type { InboxEntry } from './inbox.ts';

/** Messages accepted longer ago than this are not answered after a restart. */
export const inboxReplayHours = 24;

/** An inbox entry as the message it was (without attachments, whose bytes were not kept). */
export function replayedMessage(entry: InboxEntry): InboundMessage {
  return {
    id: entry.messageId,
    dedupeKey: entry.dedupeKey,
    sessionKey: entry.sessionKey,
    address: entry.address,
    scope: entry.scope,
    ...(entry.group !== undefined && { group: entry.group }),
    sender: entry.sender,
    text: entry.text,
    ...(entry.command !== undefined && { command: entry.command }),
    attachments: [],
    mentioned: true,
    receivedAt: entry.receivedAt,
    ...(entry.sentAt !== undefined && { sentAt: entry.sentAt }),
    raw: undefined,
  };
}

/**
 * The input for a message accepted by an earlier process whose turn never began: its `text` (as
 * the turn gives it to the model), with a note for attachments, whose bytes were not kept. (A turn that had begun is run
 * again from where it began, with the input it had; see `TurnRunner`.)
 */
export function replayInput(text: string, entry: InboxEntry): string {
  const lost = entry.attachments.map((attachment) => `[${attachment.kind === 'image' ? 'an image' : `the file ${attachment.name ?? ''}`.trim()} came with this message but was lost in a restart; ask for it again if it matters]`);
  return [text, ...lost].filter((part) => part !== '').join('\n');
}

/** Moves the session back to `leaf` when the session went on from there (else it stays). */
export async function rewindTo(tree: SessionTree, leaf: string | null): Promise<void> {
  if (leaf === tree.leafId) return;
  if (leaf !== null && !tree.branch().some((entry) => entry.id === leaf)) return;
  await tree.setLeaf(leaf);
}
