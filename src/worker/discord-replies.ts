/**
 * Sending on Discord from Workers: the Discord channel's formatting and splitting (Markdown
 * adapted to what Discord renders, chunks of at most 2,000 characters) over REST through fetch
 * (`discord-rest.ts`). The answer to a slash command completes its deferred reply: the first part
 * edits the interaction's original response (`PATCH /webhooks/{app}/{token}/messages/@original`,
 * which is also safe to repeat), further parts are follow-ups (`POST /webhooks/{app}/{token}`),
 * and an edit patches the given message through the same webhook. Interaction tokens live 15
 * minutes: once Discord refuses one, the parts go to the channel with the bot token, when there
 * is one. Without an interaction, parts are channel messages sent with the bot token, each created
 * once per `idempotencyKey` (`enforce_nonce`), as on Node.
 *
 * No typing (the deferred reply already shows "thinking…"), no buttons (presses are not taken on
 * Workers), no files (Workers have no disk): the capabilities say so.
 */
import { createHash } from 'node:crypto';
import { channelIdOf } from '../channels/discord/conversation.ts';
import { discordMaxLength, formatDiscordMessage } from '../channels/discord/format/format-message.ts';
import { DeliveryError, type ChannelAdapter, type ChannelCapabilities, type ConversationAddress, type OutboundMessage } from '../channels/types.ts';
import { createDiscordRest, type DiscordRest } from './discord-rest.ts';
import { sendParts } from './send-parts.ts';
import type { WireMessage } from './wire-message.ts';

/** Options of {@link createDiscordReplies}. */
export interface DiscordRepliesOptions {
  /** The API root without its version (`DISCORD_API_URL`; default `https://discord.com/api`). */
  apiUrl?: string;
  /** The bot token: channel messages, and parts after an interaction's token expired. Never logged. */
  botToken?: string;
  /** The slash command being answered (its deferred reply is completed). Never logged. */
  interaction?: NonNullable<WireMessage['interaction']>;
  /** Where problems are reported; lines carry no token. */
  log(line: string): void;
}

const capabilities: ChannelCapabilities = {
  edit: true,
  typing: false,
  buttons: false,
  threads: true,
  maxLength: discordMaxLength,
  // Discord allows 5 edits of a message per 5 s per channel, as on Node (`discord-channel.ts`).
  editIntervalMs: 1_000,
  commandMenu: false,
  maxFileBytes: 0,
};

interface MessageBody {
  content: string;
  allowed_mentions: { parse: never[]; replied_user?: boolean };
  message_reference?: { message_id: string; fail_if_not_exists: boolean };
  nonce?: string;
  enforce_nonce?: boolean;
}

/** What Discord sends back for a message (only its id is read). */
interface SentDiscordMessage {
  id: string;
}

/** How long after a refused first edit of the deferred reply it is tried again, in ms. */
const originalRetryMs = 1_000;

/** No message pings anyone (a reply pings only the person replied to). */
const noPings: MessageBody['allowed_mentions'] = { parse: [] };

/** Discord's idempotent create: the same 25-character nonce for a message's key and part as on Node (`outbound.ts`). */
function onceOnly(key: string | undefined, part: number): Pick<MessageBody, 'nonce' | 'enforce_nonce'> {
  if (key === undefined) return {};
  return { nonce: createHash('sha256').update(`${key}\u0000${part}`).digest('base64url').slice(0, 25), enforce_nonce: true };
}

function chunksOf(text: string): string[] {
  const chunks = formatDiscordMessage(text);
  if (chunks.length === 0) throw new DeliveryError('Discord: nothing to send (empty message)', { retryable: false });
  return chunks;
}

/**
 * The Discord adapter the Worker answers through (sending only: interactions come in at the
 * Worker's `/webhooks/discord`). Made per message when it answers an interaction: the token is
 * that message's.
 *
 * @example
 * const discord = createDiscordReplies({ apiUrl: env.DISCORD_API_URL, botToken: env.DISCORD_BOT_TOKEN, interaction, log: console.error });
 * await discord.send(address, { text: '**Done**' });
 */
export function createDiscordReplies(options: DiscordRepliesOptions): ChannelAdapter {
  const { interaction, log } = options;
  const rest: DiscordRest = createDiscordRest({ apiUrl: options.apiUrl, botToken: options.botToken, secrets: interaction ? [interaction.token] : [] });
  const webhook = interaction ? `/webhooks/${interaction.applicationId}/${interaction.token}` : undefined;

  async function editMessage(address: ConversationAddress, messageId: string, body: MessageBody): Promise<void> {
    if (webhook) await rest({ operation: 'editWebhookMessage', method: 'PATCH', path: `${webhook}/messages/${messageId}`, body, botAuth: false });
    else await rest({ operation: 'editMessage', method: 'PATCH', path: `/channels/${channelIdOf(address)}/messages/${messageId}`, body, botAuth: true });
  }

  /** Edits `messageId` into `body`; false (logged) when Discord refuses for good (gone, not ours). */
  async function replaceWith(address: ConversationAddress, messageId: string, body: MessageBody): Promise<boolean> {
    try {
      await editMessage(address, messageId, body);
      return true;
    } catch (error) {
      if (error instanceof DeliveryError && error.retryable) throw error;
      log(`discord: message ${messageId} could not be edited (${error instanceof Error ? error.message : String(error)}); sending anew`);
      return false;
    }
  }

  async function channelMessage(address: ConversationAddress, body: MessageBody): Promise<string> {
    return (await rest<SentDiscordMessage>({ operation: 'createMessage', method: 'POST', path: `/channels/${channelIdOf(address)}/messages`, body, botAuth: true })).id;
  }

  /**
   * Part `index` through the interaction's webhook; to the channel once its token is refused.
   * Discord makes the deferred reply from the Worker's HTTP answer, and a reply written in the
   * moment after can reach Discord before it did: the first part is tried once more a little
   * later before the channel is used.
   */
  async function interactionPart(address: ConversationAddress, hook: string, index: number, body: MessageBody): Promise<string> {
    for (let attempt = 1; ; attempt++) {
      try {
        const sent =
          index === 0
            ? await rest<SentDiscordMessage>({ operation: 'editOriginalResponse', method: 'PATCH', path: `${hook}/messages/@original`, body, botAuth: false })
            : await rest<SentDiscordMessage>({ operation: 'createFollowupMessage', method: 'POST', path: `${hook}?wait=true`, body, botAuth: false });
        return sent.id;
      } catch (error) {
        if (!(error instanceof DeliveryError) || error.retryable) throw error;
        if (index === 0 && attempt === 1) {
          await new Promise((resolve) => setTimeout(resolve, originalRetryMs));
          continue;
        }
        if (!options.botToken) throw error;
        log(`discord: the interaction's reply could not be written (${error.message}); sending to the channel instead`);
        return channelMessage(address, body);
      }
    }
  }

  async function sendPart(address: ConversationAddress, message: OutboundMessage, index: number, content: string): Promise<string> {
    const body: MessageBody = { content, allowed_mentions: noPings };
    if (index === 0 && message.replace !== undefined && (await replaceWith(address, message.replace, body))) return message.replace;
    if (webhook) return interactionPart(address, webhook, index, body);
    const reply = index === 0 && message.replyTo !== undefined ? { message_reference: { message_id: message.replyTo, fail_if_not_exists: false }, allowed_mentions: { parse: [], replied_user: true } } : {};
    return channelMessage(address, { ...body, ...reply, ...onceOnly(message.idempotencyKey, index) });
  }

  return {
    platform: 'discord',
    capabilities,
    // Nothing is received through the adapter on Workers: interactions are the Worker's route.
    async start() {},
    async stop() {},

    async send(address, message) {
      if ((message.files ?? []).length > 0) throw new DeliveryError('Discord: files are not sent from Workers', { retryable: false });
      return sendParts(chunksOf(message.text), message, (index, chunk) => sendPart(address, message, index, chunk));
    },

    async edit(address, messageId, message) {
      const [first] = chunksOf(message.text);
      await editMessage(address, messageId, { content: first!, allowed_mentions: noPings });
    },

    // The deferred reply shows "thinking…" until it is written; `capabilities.typing` says there is no more.
    async typing() {},
  };
}
