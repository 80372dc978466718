/**
 * A message its sender edited (`editedMessages: "reanswer"`): while the original still waits for
 * its turn, the new wording takes its place, in the queue and in the inbox, so the turn answers
 * what the person now says and a restart does too. Once the turn has begun (or the message was
 * offered to the running turn as steering, or never waited: answered, overheard, never seen) the
 * edit changes nothing: an answer is not taken back, and a second answer to a reworded message
 * would be noise.
 */
import type { InboundMessage } from '../channels/types.ts';
import { turnText } from './conversations.ts';
import type { Inbox } from './inbox.ts';
import type { TurnLanes } from './turn-lanes.ts';

/** What taking an edit works with (the gateway's parts). */
export interface EditParts {
  lanes: TurnLanes;
  inbox: Inbox;
  log(line: string): void;
}

/**
 * The turn text of `old` reworded as `edit`: the speaker's own line (the last part, in a group
 * after what was overheard) replaced; undefined when the text is not the message's own (a skill's
 * `/name args` made into its input), which an edit leaves as it is.
 */
function rewordedText(text: string, old: InboundMessage, edit: InboundMessage): string | undefined {
  const before = turnText({ overheard: [] }, old);
  if (!text.endsWith(before)) return undefined;
  return text.slice(0, text.length - before.length) + turnText({ overheard: [] }, edit);
}

/**
 * Takes `edit` (a new version of message `edit.id`): puts it in the place of the original while
 * that waits, not begun, from the same sender in the same conversation; else drops it. Resolves
 * once the inbox holds the new wording.
 */
export async function takeEdit(parts: EditParts, edit: InboundMessage): Promise<void> {
  const lane = parts.lanes.peek(edit.sessionKey);
  const waiting = lane?.waiting.find((item) => item.message.id === edit.id && item.message.sender.id === edit.sender.id && item.entry?.begun === undefined);
  const text = waiting && rewordedText(waiting.text, waiting.message, edit);
  // Offered to the running turn (`busyMode: steer`), its first wording may be taken in any moment: the turn has it.
  if (!lane || !waiting || text === undefined || lane.steering.isOffered(waiting.key)) return;
  // The original's keys stay: its inbox entry, dedupe and reply record are the same message's.
  const { edited: _edited, ...rest } = edit;
  const message: InboundMessage = { ...rest, dedupeKey: waiting.message.dedupeKey, receivedAt: waiting.message.receivedAt, ...(waiting.message.sentAt !== undefined && { sentAt: waiting.message.sentAt }) };
  // The inbox first: a crash after it answers the new wording; the queue only if it still waits.
  if (!(await parts.inbox.has(waiting.key))) return;
  await parts.inbox.add(message, message.text);
  if (lane.waiting.replace(waiting.key, { ...waiting, message, text })) parts.log(`${edit.sessionKey}: message ${edit.id} edited before its turn; answering the new wording`);
}
