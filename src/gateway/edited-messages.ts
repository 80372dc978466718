/**
 * A message its sender edited (`editedMessages: "reanswer"`): while the original still waits for
 * its turn, the new wording takes its place, in the queue and in the inbox, so the turn answers
 * what the person now says and a restart does too. Once the turn has begun (or the message was
 * offered to the running turn as steering, or never waited: answered, overheard, never seen) the
 * edit changes nothing: an answer is not taken back, and a second answer to a reworded message
 * would be noise.
 *
 * The rules (which message an edit rewords, how its turn text changes, under which keys) are
 * shared with the Worker (`src/worker/edited-entry.ts`), whose queue is its inbox alone.
 */
import type { InboundMessage } from '../channels/types.ts';
import { recentChatFrame, turnText } from './conversations.ts';
import type { Inbox } from './inbox.ts';
import { speakerLabel } from './speaker-label.ts';
import type { TurnLanes } from './turn-lanes.ts';

/** What taking an edit works with (the gateway's parts). */
export interface EditParts {
  lanes: TurnLanes;
  inbox: Inbox;
  log(line: string): void;
}

/** A message waiting for its turn, as an edit is matched against it. */
export interface EditTarget {
  /** The platform's message id. */
  id: string;
  senderId: string;
  /** Its turn began: an edit changes nothing then. */
  begun: boolean;
}

/** Whether `edit` rewords `target`: the same message, from its own sender, before its turn began. */
export function rewords(target: EditTarget, edit: Pick<InboundMessage, 'id' | 'sender'>): boolean {
  return target.id === edit.id && target.senderId === edit.sender.id && !target.begun;
}

/**
 * The turn text `text`, whose speaker's own line (the last part, in a group after what was
 * overheard) is `before`, reworded as `edit`; undefined when the text does not end with that line
 * (a skill's `/name args` made into its input), which an edit leaves as it is.
 */
export function rewordedText(text: string, before: string, edit: InboundMessage): string | undefined {
  if (!text.endsWith(before)) return undefined;
  return text.slice(0, text.length - before.length) + turnText({ overheard: [] }, edit);
}

/**
 * The speaker's own line of a turn text kept for `kept` (its scope and sender), for a queue that
 * keeps the turn text alone (the Worker's inbox): the whole text in a direct conversation; in a
 * group the labelled line that opens it, or follows the frame of what was overheard (whose texts
 * are escaped, so none closes the frame early). Undefined when there is no such line.
 */
export function ownLineOf(text: string, kept: Pick<InboundMessage, 'scope' | 'sender' | 'address'>): string | undefined {
  if (kept.scope !== 'group') return text;
  const label = `[${speakerLabel(kept)}] (speaker): `;
  if (text.startsWith(label)) return text;
  const frameEnd = '\n</recent_chat>\n\n';
  if (!text.startsWith(recentChatFrame)) return undefined;
  const at = text.indexOf(frameEnd);
  const rest = at < 0 ? undefined : text.slice(at + frameEnd.length);
  return rest?.startsWith(label) ? rest : undefined;
}

/** `edit` under the keys of `original`, whose place it takes: its inbox entry, dedupe and reply record are the same message's. */
export function inPlaceOf(original: Pick<InboundMessage, 'dedupeKey' | 'receivedAt' | 'sentAt'>, edit: InboundMessage): InboundMessage {
  const { edited: _edited, ...rest } = edit;
  return { ...rest, dedupeKey: original.dedupeKey, receivedAt: original.receivedAt, ...(original.sentAt !== undefined && { sentAt: original.sentAt }) };
}

/**
 * Takes `edit` (a new version of message `edit.id`): puts it in the place of the original while
 * that waits, not begun, from the same sender in the same conversation; else drops it. Resolves
 * once the inbox holds the new wording.
 */
export async function takeEdit(parts: EditParts, edit: InboundMessage): Promise<void> {
  const lane = parts.lanes.peek(edit.sessionKey);
  const waiting = lane?.waiting.find((item) => rewords({ id: item.message.id, senderId: item.message.sender.id, begun: item.entry?.begun !== undefined }, edit));
  const text = waiting && rewordedText(waiting.text, turnText({ overheard: [] }, waiting.message), edit);
  // Offered to the running turn (`busyMode: steer`), its first wording may be taken in any moment: the turn has it.
  if (!lane || !waiting || text === undefined || lane.steering.isOffered(waiting.key)) return;
  const message = inPlaceOf(waiting.message, edit);
  // The inbox first: a crash after it answers the new wording; the queue only if it still waits.
  if (!(await parts.inbox.has(waiting.key))) return;
  await parts.inbox.add(message, message.text);
  if (lane.waiting.replace(waiting.key, { ...waiting, message, text })) parts.log(`${edit.sessionKey}: message ${edit.id} edited before its turn; answering the new wording`);
}
