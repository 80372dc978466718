/**
 * The content a Slack message carries in `attachments`: a message shared or forwarded from
 * elsewhere (`is_share` / `is_msg_unfurl`, whose words are there and not in `text`), or an app's
 * attachment (a pretext, a title, a text). A shared message comes after a line naming where it was
 * forwarded from (see `forward-line.ts`), and its files (nested in the attachment, not in the
 * message's `files`) go with the message's own. A link's preview of a web page (`original_url`)
 * is left out: it only repeats a page the text already links to.
 */
import { forwardLine } from '../forward-line.ts';
import type { SlackFile } from './attachments.ts';
import { plainSlackText } from './mentions.ts';

/** The fields of a message attachment read here. */
export interface SlackAttachment {
  is_share?: boolean;
  is_msg_unfurl?: boolean;
  original_url?: string;
  channel_id?: string;
  channel_name?: string;
  author_name?: string;
  author_subname?: string;
  pretext?: string;
  title?: string;
  text?: string;
  fallback?: string;
  files?: SlackFile[];
}

/** Whether an attachment is a message shared or forwarded into this one. */
function isShared(attachment: SlackAttachment): boolean {
  return attachment.is_share === true || attachment.is_msg_unfurl === true;
}

/** A message's files: its own, then those of the messages it shares, in that order (the order of its attachments). */
export function messageFilesOf(event: { files?: SlackFile[]; attachments?: SlackAttachment[] }): SlackFile[] {
  const own = Array.isArray(event.files) ? event.files : [];
  if (!Array.isArray(event.attachments)) return own;
  const shared = event.attachments.flatMap((attachment) => (typeof attachment === 'object' && attachment !== null && isShared(attachment) && Array.isArray(attachment.files) ? attachment.files : []));
  return [...own, ...shared];
}

/** The channel a shared message came from, as people would name it. */
function channelName(attachment: SlackAttachment, here: string): string | undefined {
  const id = attachment.channel_id;
  if (id !== undefined && id === here) return 'this channel';
  // A DM's share names it "Direct Message", not a channel to show with a #.
  if (id?.startsWith('D')) return 'a direct message';
  if (attachment.channel_name) return `#${attachment.channel_name}`;
  return id === undefined ? undefined : 'another channel';
}

/** One attachment's words as plain text ('' when it has none). */
function contentOf(attachment: SlackAttachment): string {
  const parts = [attachment.pretext, attachment.title, attachment.text].filter((part): part is string => typeof part === 'string' && part.trim() !== '');
  const words = parts.length > 0 ? parts : typeof attachment.fallback === 'string' ? [attachment.fallback] : [];
  return words.map((part) => plainSlackText(part).trim()).join('\n').trim();
}

/**
 * The texts of a message's attachments, one per attachment with words, a shared message's with
 * its origin line first; `channel` is the conversation the message is in.
 */
export function sharedContentOf(attachments: readonly SlackAttachment[] | undefined, channel: string): string[] {
  if (!Array.isArray(attachments)) return [];
  return attachments.flatMap((attachment) => {
    if (typeof attachment !== 'object' || attachment === null) return [];
    const shared = isShared(attachment);
    if (!shared && attachment.original_url !== undefined) return [];
    const content = contentOf(attachment);
    if (content === '') return [];
    if (!shared) return [content];
    return [`${forwardLine([channelName(attachment, channel), attachment.author_name ?? attachment.author_subname])}\n${content}`];
  });
}
