/**
 * A message its sender edited, on Workers (`OPERATOR_EDITED_MESSAGES=reanswer`): the gateway's
 * rules (`src/gateway/edited-messages.ts`) over the conversation's inbox, which is the Worker's
 * queue. While the original waits, not begun and not yet read by a round of turns, the new
 * wording takes its place in the inbox, under the original's keys, with the original's files (an
 * edit brings no references of its own); its turn then answers what the person now says. A
 * message its turn has read (or begun), a command, or one never kept (answered, overheard, never
 * seen) is left as it is: an answer is not taken back.
 */
import type { InboundMessage } from '../channels/types.ts';
import { inPlaceOf, ownLineOf, rewordedText, rewords } from '../gateway/edited-messages.ts';
import type { Inbox } from '../gateway/inbox.ts';

/** What taking an edit works with: the conversation's inbox and what its running round read. */
export interface EditedEntryParts {
  inbox: Inbox;
  /** The inbox keys the running round of turns has read: their turn has their words already. */
  taking: ReadonlySet<string>;
  log(line: string): void;
}

/** Takes `edit` into the inbox in the place of the message it rewords, if that still waits; resolves to whether it did. */
export async function takeWorkerEdit(parts: EditedEntryParts, edit: InboundMessage): Promise<boolean> {
  const entry = (await parts.inbox.pending()).find((candidate) => rewords({ id: candidate.messageId, senderId: candidate.sender.id, begun: candidate.begun !== undefined }, edit));
  // A command is answered as the command it was; a message read for a turn is answered as read.
  if (!entry || entry.command !== undefined || parts.taking.has(entry.key)) return false;
  const before = ownLineOf(entry.text, entry);
  const text = before === undefined ? undefined : rewordedText(entry.text, before, edit);
  if (text === undefined) return false;
  const attachments = entry.attachments.map((attachment) => ({ ...attachment, download: () => Promise.reject(new Error('a file is read by its turn on Workers')) }));
  await parts.inbox.add({ ...inPlaceOf(entry, edit), text, attachments }, text);
  parts.log(`${edit.sessionKey}: message ${edit.id} edited before its turn; answering the new wording`);
  return true;
}
