/**
 * Who said what in a group, as the model reads it: every message labelled with its sender's
 * display name and stable id, `[Ada Lovelace (@ada) · telegram:1234]`. The id is the person; the
 * name and username are what they chose for themselves, so they are shown as plain words only
 * (one line, no brackets, tags or the label's own separator, at most 64 characters) and never
 * reach the system prompt. A message's text cannot pose as another person's message either: a
 * line of it shaped like a label, or a tag of the turn's own frame, is escaped with a backslash.
 */
import type { InboundMessage } from '../channels/types.ts';

/** The longest display name a label shows, in characters. */
const nameChars = 64;

/**
 * Control and format characters (bidirectional overrides, zero-width joiners), line and paragraph
 * separators: a name could reorder or break the label with them.
 */
const invisible = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu;
/** Brackets and tags would open or close a label or a frame; the dots would fake the separator. */
const structural = /[[\]<>{}`\u00b7\u2022\u2027\u2219\u22c5\u30fb\uff65]/gu;

/**
 * `name` as plain words for a label: NFKC-normalized, invisible and structural characters turned
 * into spaces, spaces collapsed, cut to {@link nameChars} with an ellipsis. Empty when nothing is left.
 */
export function plainName(name: string | undefined): string {
  if (!name) return '';
  const words = name.normalize('NFKC').replace(invisible, ' ').replace(structural, ' ').replace(/\s+/g, ' ').trim();
  const characters = [...words];
  return characters.length > nameChars ? `${characters.slice(0, nameChars - 1).join('').trimEnd()}…` : words;
}

/** A username as the platforms allow it (letters, digits, `_`, `.`, `-`); anything else is dropped. */
function plainUsername(username: string | undefined): string {
  return username !== undefined && /^[\p{L}\p{N}_.-]{1,64}$/u.test(username) ? username : '';
}

/**
 * The label of `message`'s sender, without its brackets: `Ada Lovelace (@ada) · telegram:1234`,
 * `telegram:1234` when they gave no usable name. The same sender gives the same bytes.
 */
export function speakerLabel(message: Pick<InboundMessage, 'sender' | 'address'>): string {
  const name = plainName(message.sender.name);
  const username = plainUsername(message.sender.username);
  const shown = name && username && username !== name ? `${name} (@${username})` : name || (username && `@${username}`);
  const id = `${message.address.platform}:${message.sender.id}`;
  return shown ? `${shown} · ${id}` : id;
}

/** A line of a message shaped like a label (`[… · platform:id]`), at its start. */
const labelLine = /^(\s*)\[(?=[^\]\n]*·)/gmu;
/** The tags that frame a group turn's recent chat. */
const frameTag = /<(\/?)(recent_chat)\b/giu;

/**
 * `text` with what could pose as the turn's own structure escaped: a line that starts like a label
 * gets a backslash before its bracket, a `<recent_chat>` or `</recent_chat>` tag one after its
 * `<` (`<\/recent_chat>`). Everything else is left as the person wrote it.
 */
export function escapeFrame(text: string): string {
  return text.replace(labelLine, '$1\\[').replace(frameTag, '<\\$1$2');
}
