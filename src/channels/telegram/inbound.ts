/**
 * Telegram updates as neutral events: a `message` becomes an {@link InboundMessage}, a
 * `callback_query` a {@link ChannelAction}, a `my_chat_member` that puts the bot into a group a
 * {@link GroupJoin} (its `from` is who added it), as does the service message of a group upgraded
 * to a supergroup (naming the group it replaced); a `my_chat_member` that removes the bot from a
 * group, or blocks or unblocks it in a private chat, a {@link MembershipChange}; other updates
 * (service messages; edits unless asked for, as `edited` messages) are not events here, nor are bots' messages unless `allowBots` (see
 * {@link isFromBot}). Sound and video come as files; a sticker, die, location, venue, poll,
 * contact, story or game as a line of text (`shared-content.ts`); a forward's text comes after a line naming its
 * origin (`forward-origin.ts`). Redelivery of an update keeps its `dedupeKey`, `telegram:update:<id>`.
 */
import type { CallbackQuery, ChatMemberUpdated, Message, Update, User } from 'grammy/types';
import type { ChannelAction, GroupJoin, GroupRef, InboundMessage, MembershipChange, Sender } from '../types.ts';
import { admitted, type BotTurns } from '../bot-turns.ts';
import { attachmentsOf, type DownloadFile } from './attachments.ts';
import { conversationOf, topicOf } from './conversation.ts';
import { forwardLineOf } from './forward-origin.ts';
import { analyzeText, type BotIdentity } from './mentions.ts';
import { sharedContentLine } from './shared-content.ts';

/** What converting an update needs to know. */
export interface InboundContext {
  bot: BotIdentity;
  download: DownloadFile;
  /** The clock (ms since the epoch). */
  now(): number;
  /** Hand over messages of other bots too (`telegram.allowBots`; default false: people only). */
  allowBots?: boolean;
  /** How many bots' messages in a row a conversation takes (with `allowBots`). */
  botTurns?: BotTurns;
  /** Hand over edited messages too, marked `edited` (default false: an edit is no event). */
  editedMessages?: boolean;
}

function senderOf(user: User, isBot = user.is_bot): Sender {
  const name = [user.first_name, user.last_name].filter(Boolean).join(' ');
  return {
    id: String(user.id),
    ...(name ? { name } : {}),
    ...(user.username ? { username: user.username } : {}),
    isBot,
  };
}

/**
 * Whether a message is a bot's: sent by one (`is_bot`, which includes the accounts Telegram posts
 * an anonymous admin's or a channel's messages under), or made through an inline bot (`via_bot`:
 * its content is the bot's, whoever picked it).
 */
export function isFromBot(message: Pick<Message, 'from' | 'via_bot'>): boolean {
  return message.from?.is_bot === true || (message.via_bot !== undefined && message.via_bot !== null);
}

/** The message replied to, unless it is only the forum topic's creation that Telegram links to. */
function realReply(message: Message): Message | undefined {
  const reply = message.reply_to_message;
  if (!reply) return undefined;
  if (reply.forum_topic_created || (message.is_topic_message && reply.message_id === message.message_thread_id)) return undefined;
  return reply;
}

/** A `message` update as an {@link InboundMessage}, or undefined when it carries nothing to answer. */
export function toInboundMessage(updateId: number, message: Message, context: InboundContext): InboundMessage | undefined {
  if (!message.from) return undefined;
  const fromBot = isFromBot(message);
  if (fromBot && context.allowBots !== true) return undefined;
  const attachments = attachmentsOf(message, context.download);
  const shared = sharedContentLine(message);
  const rawText = message.text ?? [message.caption, shared].filter(Boolean).join('\n');
  if (rawText === '' && attachments.length === 0) return undefined;
  const analysis = analyzeText(rawText, message.entities ?? message.caption_entities ?? [], context.bot);
  // A forward's text is someone else's words: shown after where it came from, never a command.
  const forwarded = forwardLineOf(message);
  const text = forwarded === undefined ? analysis.text : `${forwarded}\n${analysis.text}`.trim();
  const command = forwarded === undefined ? analysis.command : undefined;
  const conversation = conversationOf(message.chat, topicOf(message));
  const reply = realReply(message);
  const repliesToBot = reply?.from?.id === context.bot.id;
  const replyText = reply?.text ?? reply?.caption;
  const inbound: InboundMessage = {
    id: String(message.message_id),
    dedupeKey: `telegram:update:${updateId}`,
    sessionKey: conversation.sessionKey,
    address: conversation.address,
    scope: conversation.scope,
    ...(conversation.scope === 'group' && { group: groupOfChat(message.chat) }),
    sender: senderOf(message.from, fromBot),
    text,
    attachments,
    mentioned: conversation.scope === 'dm' || analysis.mentioned || repliesToBot,
    ...(message.media_group_id !== undefined && { albumId: message.media_group_id }),
    ...(reply ? { replyTo: { id: String(reply.message_id), fromBot: repliesToBot, ...(replyText !== undefined ? { text: replyText } : {}) } } : {}),
    ...(command ? { command } : {}),
    receivedAt: context.now(),
    // Telegram gives whole seconds.
    ...(Number.isFinite(message.date) && message.date > 0 ? { sentAt: message.date * 1000 } : {}),
    raw: message,
  };
  return admitted(inbound, context.botTurns);
}

/** A `callback_query` update as a {@link ChannelAction}, or undefined for one without its message. */
export function toChannelAction(updateId: number, query: CallbackQuery): ChannelAction | undefined {
  const message = query.message;
  if (!message) return undefined;
  const conversation = conversationOf(message.chat, 'is_topic_message' in message ? topicOf(message) : undefined);
  return {
    id: query.id,
    dedupeKey: `telegram:update:${updateId}`,
    sessionKey: conversation.sessionKey,
    address: conversation.address,
    sender: senderOf(query.from),
    data: query.data ?? '',
    messageId: String(message.message_id),
    raw: query,
  };
}

/** The group a chat is, for approving it: its id and title. */
function groupOfChat(chat: Message['chat']): GroupRef {
  return { kind: 'group', id: String(chat.id), ...('title' in chat && chat.title ? { title: chat.title } : {}) };
}

/** The statuses of a bot that is in a chat and may speak there. */
const inChat: ReadonlySet<string> = new Set(['member', 'administrator']);

/**
 * A `my_chat_member` update as a {@link GroupJoin} when it puts the bot into a group or
 * supergroup, or makes it an administrator there; undefined for anything else (the bot removed,
 * a private chat blocked, a channel).
 */
export function toGroupJoin(updateId: number, change: ChatMemberUpdated, context: Pick<InboundContext, 'bot'>): GroupJoin | undefined {
  if (change.chat.type !== 'group' && change.chat.type !== 'supergroup') return undefined;
  if (change.new_chat_member.user.id !== context.bot.id) return undefined;
  const now = change.new_chat_member.status;
  if (!inChat.has(now) || change.old_chat_member.status === now) return undefined;
  const conversation = conversationOf(change.chat, undefined);
  return {
    dedupeKey: `telegram:update:${updateId}`,
    address: conversation.address,
    sessionKey: conversation.sessionKey,
    group: groupOfChat(change.chat),
    by: senderOf(change.from),
    raw: change,
  };
}

/** The statuses of a bot that is out of a chat (removed from a group, blocked in a private chat). */
const outOfChat: ReadonlySet<string> = new Set(['left', 'kicked']);

/**
 * A `my_chat_member` update about this bot as a {@link MembershipChange}: removed from a group
 * (`left` or `kicked`), blocked in a private chat (`kicked`), or unblocked there (`member` after
 * `kicked`); undefined for anything else (a join: see {@link toGroupJoin}; a channel; another user).
 */
export function toMembershipChange(updateId: number, change: ChatMemberUpdated, context: Pick<InboundContext, 'bot'>): MembershipChange | undefined {
  if (change.new_chat_member.user.id !== context.bot.id) return undefined;
  const before = change.old_chat_member.status;
  const now = change.new_chat_member.status;
  const chatId = String(change.chat.id);
  const base = { dedupeKey: `telegram:update:${updateId}`, platform: 'telegram', conversationIds: [chatId], raw: change };
  if (change.chat.type === 'private') {
    if (now === 'kicked' && before !== 'kicked') return { ...base, kind: 'blocked', label: `telegram:dm:${chatId}` };
    if (before === 'kicked' && now === 'member') return { ...base, kind: 'unblocked', label: `telegram:dm:${chatId}` };
    return undefined;
  }
  if (change.chat.type !== 'group' && change.chat.type !== 'supergroup') return undefined;
  if (!outOfChat.has(now) || outOfChat.has(before)) return undefined;
  return { ...base, kind: 'removed', label: `telegram:group:${chatId}` };
}

/**
 * The service message Telegram posts in a supergroup made from a group (`migrate_from_chat_id`)
 * as a {@link GroupJoin} that names the group it replaced; undefined for any other message.
 */
export function toGroupMove(updateId: number, message: Message): GroupJoin | undefined {
  if (message.migrate_from_chat_id === undefined || (message.chat.type !== 'group' && message.chat.type !== 'supergroup')) return undefined;
  const conversation = conversationOf(message.chat, undefined);
  return {
    dedupeKey: `telegram:update:${updateId}`,
    address: conversation.address,
    sessionKey: conversation.sessionKey,
    group: groupOfChat(message.chat),
    movedFrom: { kind: 'group', id: String(message.migrate_from_chat_id) },
    // Only a basic group migrates, and it has no topics: its one conversation is the chat's.
    movedFromSessionKey: conversationOf({ id: message.migrate_from_chat_id, type: 'group' }, undefined).sessionKey,
    raw: message,
  };
}

/** An update as the neutral event it carries, if any. */
export function toChannelEvent(update: Update, context: InboundContext): { message: InboundMessage } | { action: ChannelAction } | { join: GroupJoin } | { membership: MembershipChange } | undefined {
  if (update.message) {
    const moved = toGroupMove(update.update_id, update.message);
    if (moved) return { join: moved };
    const message = toInboundMessage(update.update_id, update.message, context);
    return message ? { message } : undefined;
  }
  if (update.edited_message && context.editedMessages === true) {
    // A new wording, never a command: the gateway puts it in the place of a message still waiting.
    const message = toInboundMessage(update.update_id, update.edited_message, context);
    if (!message) return undefined;
    const { command: _command, ...edited } = message;
    return { message: { ...edited, edited: true } };
  }
  if (update.callback_query) {
    const action = toChannelAction(update.update_id, update.callback_query);
    return action ? { action } : undefined;
  }
  if (update.my_chat_member) {
    const join = toGroupJoin(update.update_id, update.my_chat_member, context);
    if (join) return { join };
    const membership = toMembershipChange(update.update_id, update.my_chat_member, context);
    return membership ? { membership } : undefined;
  }
  return undefined;
}
