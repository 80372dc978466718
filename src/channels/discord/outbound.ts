/**
 * Neutral outbound operations as Discord REST calls: send (adapted, split, then the files, one
 * message each; the first part replying, the last text chunk carrying the buttons, a pending
 * slash command's deferred response completed by the first new text message to its channel),
 * edit, typing, the command menu and ephemeral answers to button presses. No message pings anyone
 * but the person replied to (`allowed_mentions`).
 */
import { createHash } from 'node:crypto';
import { Routes, type APIMessage, type RESTPostAPIChannelMessageJSONBody } from 'discord.js';
import { DeliveryError, type Button, type ChannelAction, type CommandInfo, type ConversationAddress, type OutboundMessage, type SentMessage } from '../types.ts';
import type { CallDiscord } from './call-discord.ts';
import { commandMenuBody } from './command-menu.ts';
import { channelIdOf } from './conversation.ts';
import { discordErrorCode } from './discord-errors.ts';
import { loadFormatter } from './format/load-formatter.ts';
import type { InteractionTokens } from './interaction-tokens.ts';
import { createSendDiscordFile } from './upload.ts';

/** Discord's outbound operations for one bot. */
export interface DiscordOutbound {
  send(address: ConversationAddress, message: OutboundMessage): Promise<SentMessage>;
  /** Edits one message: a text too long for one message keeps only its first chunk. */
  edit(address: ConversationAddress, messageId: string, message: OutboundMessage): Promise<void>;
  typing(address: ConversationAddress): Promise<void>;
  setCommands(commands: CommandInfo[]): Promise<void>;
  answerAction(action: ChannelAction, text?: string): Promise<void>;
  /** Completes a deferred slash command response with `text` (a notice), if its token lives. */
  completeDeferred(channelId: string, token: string, text: string): Promise<void>;
  /** Posts a short notice replying to `replyTo`, never as a pending command's response. */
  notice(address: ConversationAddress, text: string, replyTo: string): Promise<void>;
}

/** What the outbound operations need. */
export interface OutboundContext {
  call: CallDiscord;
  tokens: InteractionTokens;
  /** The bot's application id (known from READY, else asked for). */
  applicationId(): Promise<string>;
  /** The largest file the bot may send, in bytes (larger ones are refused). */
  maxFileBytes: number;
  log(line: string): void;
}

type MessageBody = Pick<RESTPostAPIChannelMessageJSONBody, 'content' | 'components' | 'allowed_mentions' | 'message_reference' | 'flags' | 'nonce' | 'enforce_nonce'>;

const noPings: NonNullable<MessageBody['allowed_mentions']> = { parse: [] };

/**
 * Discord's idempotent create: a nonce (at most 25 characters) made from the message's key and
 * the part, checked for uniqueness (`enforce_nonce`), so a second create with it in the next
 * few minutes hands back the message made the first time instead of a copy.
 */
function onceOnly(key: string | undefined, part: number): Pick<MessageBody, 'nonce' | 'enforce_nonce'> {
  if (key === undefined) return {};
  return { nonce: createHash('sha256').update(`${key}\u0000${part}`).digest('base64url').slice(0, 25), enforce_nonce: true };
}

/** A reply to `replyTo` that pings only the person replied to. */
function replyBody(replyTo: string): Pick<MessageBody, 'message_reference' | 'allowed_mentions'> {
  return { message_reference: { message_id: replyTo, fail_if_not_exists: false }, allowed_mentions: { parse: [], replied_user: true } };
}

/** Buttons as action rows: at most 5 buttons a row and 5 rows (Discord's limits). */
function componentsOf(buttons: Button[][] | undefined, log: (line: string) => void): NonNullable<MessageBody['components']> {
  const rows = (buttons ?? []).flatMap((row) => Array.from({ length: Math.ceil(row.length / 5) }, (_, index) => row.slice(index * 5, index * 5 + 5)));
  if (rows.length > 5) log(`discord: ${rows.length - 5} row(s) of buttons left out (Discord shows at most 5 rows)`);
  return rows.slice(0, 5).map((row) => ({
    type: 1,
    components: row.map((button) => ({ type: 2, style: 2, label: button.label.slice(0, 80), custom_id: button.data.slice(0, 100) })),
  }));
}

async function chunksOf(text: string): Promise<string[]> {
  const { formatDiscordMessage } = await loadFormatter();
  const chunks = formatDiscordMessage(text);
  if (chunks.length === 0) throw new DeliveryError('Discord: nothing to send (empty message)', { retryable: false });
  return chunks;
}

/** Outbound operations, each call through `context.call` (rate-limit retries, scrubbed errors). */
export function createDiscordOutbound(context: OutboundContext): DiscordOutbound {
  const { call, tokens, log } = context;
  const sendFile = createSendDiscordFile(call, context.maxFileBytes);

  /** Edits a message, through the interaction's webhook while it is a live interaction response. */
  async function editMessage(channelId: string, messageId: string, body: MessageBody): Promise<void> {
    const token = tokens.responseToken(messageId);
    if (token) {
      const applicationId = await context.applicationId();
      await call('editWebhookMessage', (rest) => rest.patch(Routes.webhookMessage(applicationId, token, messageId), { body, auth: false }));
      return;
    }
    await call('editMessage', (rest) => rest.patch(Routes.channelMessage(channelId, messageId), { body }));
  }

  /** Edits `messageId` into `body`; false (logged) when Discord refuses for good (gone, not ours). */
  async function replaceWith(channelId: string, messageId: string, body: MessageBody): Promise<boolean> {
    try {
      await editMessage(channelId, messageId, body);
      return true;
    } catch (error) {
      if (error instanceof DeliveryError && error.retryable) throw error;
      log(`discord: message ${messageId} could not be edited (${error instanceof Error ? error.message : String(error)}); sending anew`);
      return false;
    }
  }

  /** Posts `body` as the deferred response `token`; undefined (logged) when the token is spent. */
  async function respond(token: string, body: MessageBody): Promise<string | undefined> {
    const applicationId = await context.applicationId();
    try {
      const message = await call<APIMessage>('editOriginalResponse', (rest) => rest.patch(Routes.webhookMessage(applicationId, token), { body, auth: false }));
      tokens.response(message.id, token);
      return message.id;
    } catch (error) {
      if (error instanceof DeliveryError && error.retryable) throw error;
      log(`discord: deferred command response could not be completed (code ${discordErrorCode(error) ?? 'none'}); sending a new message`);
      return undefined;
    }
  }

  /**
   * One text part: an edit of `replace` where it can be edited, else (for a message's first part,
   * `first`) the deferred response of the slash command it answers (`first.replyTo` in a group; in
   * a DM the oldest), else a new message (replying when `reply` says so). Resolves with its id.
   */
  async function sendText(channelId: string, body: MessageBody, replace: string | undefined, reply: MessageBody, first?: { replyTo?: string }): Promise<string> {
    if (replace !== undefined && (await replaceWith(channelId, replace, body))) return replace;
    const token = first === undefined ? undefined : tokens.takeDeferred(channelId, first.replyTo);
    const responseId = token === undefined ? undefined : await respond(token, body);
    if (responseId !== undefined) return responseId;
    const sent = await call<APIMessage>('createMessage', (rest) => rest.post(Routes.channelMessages(channelId), { body: { ...body, ...reply } }));
    return sent.id;
  }

  return {
    async send(address, message) {
      const files = message.files ?? [];
      // Files alone: no text part at all (Discord refuses an empty message).
      const chunks = files.length > 0 && message.text.trim() === '' ? [] : await chunksOf(message.text);
      const channelId = channelIdOf(address);
      const parts = chunks.length + files.length;
      // Buttons go under the last text chunk; with no text, under the last file.
      const buttonsAt = chunks.length > 0 ? chunks.length - 1 : parts - 1;
      const ids: string[] = [];
      /** Notes a delivered part (the caller records progress of a long reply). */
      const delivered = (id: string) => {
        ids.push(id);
        message.onPart?.(ids, parts);
      };
      for (let index = message.skipParts ?? 0; index < parts; index++) {
        const components = index === buttonsAt ? componentsOf(message.buttons, log) : [];
        const reply = { ...(index === 0 && message.replyTo !== undefined ? replyBody(message.replyTo) : {}), ...onceOnly(message.idempotencyKey, index) };
        const chunk = chunks[index];
        try {
          if (chunk === undefined) {
            delivered((await sendFile(channelId, files[index - chunks.length]!, { allowed_mentions: noPings, components, ...reply })).id);
          } else {
            delivered(await sendText(channelId, { content: chunk, allowed_mentions: noPings, components }, index === 0 ? message.replace : undefined, reply, index === 0 ? { replyTo: message.replyTo } : undefined));
          }
        } catch (error) {
          throw error instanceof DeliveryError ? error.withDelivered(ids) : error;
        }
      }
      return { ids };
    },

    async edit(address, messageId, message) {
      const [first] = await chunksOf(message.text);
      await editMessage(channelIdOf(address), messageId, { content: first!, allowed_mentions: noPings, components: componentsOf(message.buttons, log) });
    },

    async typing(address) {
      await call('triggerTyping', (rest) => rest.post(Routes.channelTyping(channelIdOf(address))));
    },

    async setCommands(commands) {
      const body = commandMenuBody(commands, (command) => log(`discord: command "${command.name}" left out of the menu (Discord allows 1-32 of a-z, 0-9, - and _, each name once, and 100 commands)`));
      const applicationId = await context.applicationId();
      await call('bulkOverwriteCommands', (rest) => rest.put(Routes.applicationCommands(applicationId), { body }));
    },

    async answerAction(action, text) {
      // The press was acknowledged (deferred update) when it arrived; only a notice is left to send.
      if (text === undefined || text.trim() === '') return;
      const token = tokens.actionToken(action.id);
      if (!token) {
        log(`discord: button press ${action.id} can no longer be answered (its 15 minutes are over)`);
        return;
      }
      const applicationId = await context.applicationId();
      const body = { content: text.slice(0, 2000), flags: 64, allowed_mentions: noPings };
      await call('createFollowup', (rest) => rest.post(Routes.webhook(applicationId, token), { body, auth: false }));
    },

    async notice(address, text, replyTo) {
      const body = { content: text, ...replyBody(replyTo) };
      await call('createMessage', (rest) => rest.post(Routes.channelMessages(channelIdOf(address)), { body }));
    },

    async completeDeferred(channelId, token, text) {
      tokens.dropDeferred(channelId, token);
      await respond(token, { content: text, allowed_mentions: noPings });
    },
  };
}
