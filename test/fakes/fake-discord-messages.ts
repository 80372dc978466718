/**
 * The bot's messages as Discord makes them from a REST body: validation as Discord does it (an
 * empty message, content over 2,000 characters, more than 5 buttons in a row, a reply to a
 * message that does not exist, a file over the upload limit), the stored `APIMessage` (a reply is
 * type 19 with its `referenced_message`; uploaded files become its `attachments`) and edits that
 * change only the fields the body names.
 */
import type { APIMessage } from 'discord.js';
import { discordErrors, fieldError } from './fake-discord-answers.ts';
import type { FakeComponents, FakeDiscordState, FakeStoredMessage } from './fake-discord-state.ts';
import { hostUploads, validateUploads, type FakeUpload } from './fake-discord-uploads.ts';

/** The fields of a create / edit message body the fake understands (embeds are ignored). */
export interface MessageBody {
  content?: string;
  components?: FakeComponents;
  embeds?: unknown[];
  flags?: number;
  allowed_mentions?: unknown;
  message_reference?: { message_id: string; channel_id?: string; fail_if_not_exists?: boolean };
  /** Names for the uploaded `files[n]` parts: `{ id: n, filename }`. */
  attachments?: unknown[];
  /** An integer or a string of at most 25 characters. */
  nonce?: string | number;
  /** With `nonce`: a message of the same author with the same nonce in the last few minutes is handed back instead of made again. */
  enforce_nonce?: boolean;
}

/** How long Discord remembers a nonce for `enforce_nonce` ("the past few minutes"; five here). */
const nonceMemoryMs = 5 * 60_000;

/** The files of a multipart create-message request, hosted under `origin`. */
export interface MessageUploads {
  uploads: readonly FakeUpload[];
  origin: string;
}

const maxContent = 2000;

/** Throws Discord's Invalid Form Body error when the body breaks a limit. */
function validate(body: MessageBody): void {
  const errors: Record<string, unknown> = {};
  if (typeof body.content === 'string' && body.content.length > maxContent) {
    errors.content = fieldError('BASE_TYPE_MAX_LENGTH', `Must be ${maxContent} or fewer in length.`);
  }
  const rows = body.components ?? [];
  if (rows.length > 5) errors.components = fieldError('BASE_TYPE_BAD_LENGTH', 'Must be between 0 and 5 in length.');
  rows.forEach((row, index) => {
    if (row.components.length > 5) errors[`components.${index}.components`] = fieldError('BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 5 in length.');
  });
  if (Object.keys(errors).length > 0) throw discordErrors.invalidForm(errors);
}

/** Creates one of the bot's messages in `channelId` from a create-message body (and its files). */
export function createBotMessage(state: FakeDiscordState, channelId: string, body: MessageBody, extra: Partial<FakeStoredMessage> = {}, files?: MessageUploads): FakeStoredMessage {
  validate(body);
  const uploads = files?.uploads ?? [];
  validateUploads(uploads);
  const hasContent = typeof body.content === 'string' && body.content.trim() !== '';
  if (!hasContent && (body.components ?? []).length === 0 && (body.embeds ?? []).length === 0 && uploads.length === 0 && !extra.message?.flags) throw discordErrors.emptyMessage();
  const reference = body.message_reference;
  const referenced = reference ? state.messages.get(reference.message_id) : undefined;
  if (reference && (!referenced || referenced.message.channel_id !== channelId) && reference.fail_if_not_exists !== false) {
    throw discordErrors.invalidForm({ message_reference: fieldError('MESSAGE_REFERENCE_UNKNOWN_MESSAGE', 'Unknown message') });
  }
  if (body.nonce !== undefined && (typeof body.nonce === 'string' ? body.nonce.length > 25 : !Number.isInteger(body.nonce))) {
    throw discordErrors.invalidForm({ nonce: fieldError('BASE_TYPE_BAD_LENGTH', 'Must be 25 or fewer in length.') });
  }
  if (body.enforce_nonce === true && body.nonce !== undefined) {
    // Discord hands back the message it made for this nonce, unchanged, rather than a second one.
    const made = state.channelMessages(channelId).find(
      (stored) => stored.message.author.id === state.bot.id && stored.message.nonce === body.nonce && Date.now() - Date.parse(stored.message.timestamp) < nonceMemoryMs,
    );
    if (made) return made;
  }
  const channel = state.channels.get(channelId);
  const message: APIMessage = {
    id: state.snowflake(),
    channel_id: channelId,
    author: state.bot,
    content: body.content ?? '',
    timestamp: new Date().toISOString(),
    edited_timestamp: null,
    tts: false,
    mention_everyone: false,
    mentions: [],
    mention_roles: [],
    attachments: files ? hostUploads(state, channelId, uploads, body.attachments, files.origin) : [],
    embeds: [],
    pinned: false,
    type: referenced ? 19 : 0,
    flags: body.flags ?? 0,
    components: body.components ?? [],
    ...(body.nonce !== undefined ? { nonce: body.nonce } : {}),
    ...(referenced ? { message_reference: { type: 0, message_id: referenced.message.id, channel_id: channelId, ...(channel?.guildId ? { guild_id: channel.guildId } : {}) }, referenced_message: referenced.message } : {}),
    ...extra.message,
  } as APIMessage;
  const stored: FakeStoredMessage = { edits: 0, ...(body.allowed_mentions !== undefined ? { allowedMentions: body.allowed_mentions } : {}), ...extra, message };
  state.messages.set(message.id, stored);
  state.notify();
  return stored;
}

/** Applies an edit body to a stored message (only the fields it names change). */
export function editStoredMessage(state: FakeDiscordState, stored: FakeStoredMessage, body: MessageBody): APIMessage {
  validate(body);
  const content = body.content ?? stored.message.content;
  const components = body.components ?? stored.message.components ?? [];
  if (content.trim() === '' && components.length === 0 && stored.message.embeds.length === 0 && stored.message.attachments.length === 0) throw discordErrors.emptyMessage();
  // An edit of a deferred response ends its "thinking" state (flag 128, LOADING).
  const flags = (body.flags ?? stored.message.flags ?? 0) & ~128;
  stored.message = { ...stored.message, content, components, flags, edited_timestamp: new Date().toISOString() };
  if (body.allowed_mentions !== undefined) stored.allowedMentions = body.allowed_mentions;
  stored.edits += 1;
  state.notify();
  return stored.message;
}
