/**
 * A person's MESSAGE_CREATE as an {@link InboundMessage}: which messages are for the adapter at
 * all (not the bot's own, not other bots' or webhooks' unless allowed, only ordinary messages
 * and replies), the mention and reply fields, the text without the bot's mention, a leading
 * `/command`, attachments, a line per sticker (`[sticker Yippee]`), and a forward's content and files (`forwards.ts`). The dedupe key,
 * `discord:<messageId>`, is the same however often the gateway delivers the message (a resume
 * replays dispatches).
 */
import type { APIUser, GatewayMessageCreateDispatchData } from 'discord.js';
import type { GroupRef, InboundMessage, Sender } from '../types.ts';
import { attachmentsOf, type FetchBytes } from './attachments.ts';
import { admitted, type BotTurns } from '../bot-turns.ts';
import { withForwarded } from '../forward-line.ts';
import type { DiscordConversation } from './conversation.ts';
import { forwardedOf, type ForwardContext } from './forwards.ts';
import { analyzeContent } from './mentions.ts';

/** What converting a message needs to know. */
export interface InboundContext extends ForwardContext {
  /** The bot's user id. */
  botId: string;
  fetchBytes: FetchBytes;
  /** The clock (ms since the epoch). */
  now(): number;
  /** How many bots' messages in a row a conversation takes (with `allowBots`). */
  botTurns?: BotTurns;
}

/** Message types a person writes: a default message (0) and a reply (19). */
const personMessageTypes: ReadonlySet<number> = new Set([0, 19]);

/** The sender of a message or interaction. */
export function senderOf(user: APIUser): Sender {
  return {
    id: user.id,
    ...(user.global_name ? { name: user.global_name } : {}),
    username: user.username,
    isBot: user.bot === true,
  };
}

/** Whether a message is a bot's: its author is one, or a webhook posted it (`webhook_id`; some payloads write none as null). */
export function isFromBot(message: Pick<GatewayMessageCreateDispatchData, 'author' | 'webhook_id'>): boolean {
  return message.author.bot === true || (typeof message.webhook_id === 'string' && message.webhook_id !== '');
}

/** Whether a message is one to hand over: a person's (or, when allowed, another bot's) ordinary message. */
export function isForAdapter(message: GatewayMessageCreateDispatchData, botId: string, allowBots: boolean): boolean {
  if (message.author.id === botId || !personMessageTypes.has(message.type)) return false;
  return allowBots || !isFromBot(message);
}

/** The message's `timestamp` (ISO 8601) as `sentAt` in ms (the moment discord.js's `createdTimestamp` reads from the id), if it is one. */
function sentAtOf(message: GatewayMessageCreateDispatchData): { sentAt?: number } {
  const sentAt = Date.parse(message.timestamp);
  return Number.isFinite(sentAt) && sentAt > 0 ? { sentAt } : {};
}

/**
 * A message as an {@link InboundMessage} in `conversation` (of server `group`, in a guild), or
 * undefined when it carries nothing.
 */
export function toInboundMessage(message: GatewayMessageCreateDispatchData, conversation: DiscordConversation, context: InboundContext, group?: GroupRef): InboundMessage | undefined {
  const forwarded = forwardedOf(message, context);
  const attachments = attachmentsOf([...message.attachments, ...forwarded.attachments], context.fetchBytes);
  const analysis = analyzeContent(message.content, message.mentions.map((user) => user.id), context.botId);
  // A sticker is said in one line after the words (its name is what it means to the model);
  // a forward's words come after the message's own (empty in the forwards Discord sends, but read all the same).
  const stickers = (message.sticker_items ?? []).map((sticker) => `[sticker ${sticker.name.replace(/\s+/g, ' ').trim()}]`);
  const text = withForwarded([analysis.text, ...stickers].filter((part) => part !== '').join('\n'), forwarded.texts);
  if (text === '' && attachments.length === 0) return undefined;
  const referenced = message.referenced_message ?? undefined;
  const replyId = referenced?.id ?? (message.type === 19 ? message.message_reference?.message_id : undefined);
  const repliesToBot = referenced?.author.id === context.botId;
  const inbound: InboundMessage = {
    id: message.id,
    dedupeKey: `discord:${message.id}`,
    sessionKey: conversation.sessionKey,
    address: conversation.address,
    scope: conversation.scope,
    ...(conversation.scope === 'group' && group && { group }),
    sender: { ...senderOf(message.author), isBot: isFromBot(message) },
    text,
    attachments,
    mentioned: conversation.scope === 'dm' || analysis.mentioned || repliesToBot,
    ...(replyId !== undefined ? { replyTo: { id: replyId, fromBot: repliesToBot, ...(referenced ? { text: referenced.content } : {}) } } : {}),
    ...(analysis.command ? { command: analysis.command } : {}),
    receivedAt: context.now(),
    ...sentAtOf(message),
    raw: message,
  };
  return admitted(inbound, context.botTurns);
}
