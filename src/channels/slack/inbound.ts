/**
 * Slack events as neutral ones: a `message` or `app_mention` event becomes an
 * {@link InboundMessage}, a `block_actions` press a {@link ChannelAction}, a slash command an
 * {@link InboundMessage} carrying a command. Slack sends both a `message` and an `app_mention`
 * event for one mention, and retries resend an event with the same content, so a message's
 * `dedupeKey` is made from the message itself (`slack:<channel>:<ts>`), never the event id.
 * Other apps' messages are handed over only with `allowBots`, Slackbot's never; a shared
 * message's words, in `attachments`, follow the sender's own (`shared-messages.ts`).
 */
import type { Attachment, ChannelAction, InboundMessage, Sender } from '../types.ts';
import { attachmentsOf, type DownloadFile, type SlackFile } from './attachments.ts';
import { admitted, type BotTurns } from '../bot-turns.ts';
import { withForwarded } from '../forward-line.ts';
import { conversationOf, isDirectMessage, startsThread, threadOf, type SlackReplyInThread } from './conversation.ts';
import { analyzeText } from './mentions.ts';
import { messageFilesOf, sharedContentOf, type SlackAttachment } from './shared-messages.ts';

/** The bot as `auth.test` describes it. */
export interface SlackIdentity {
  /** The bot user's id (`U…`), the one mentions name. */
  userId: string;
  /** The bot's id (`B…`), on the messages it posts. */
  botId: string;
  teamId: string;
}

/** What converting an event needs to know. */
export interface InboundContext {
  bot: SlackIdentity;
  download: DownloadFile;
  /** The clock (ms since the epoch). */
  now(): number;
  /** Hand over messages of other apps and bots too (`slack.allowBots`; default false: people only). */
  allowBots?: boolean;
  /** How many bots' messages in a row a conversation takes (with `allowBots`). */
  botTurns?: BotTurns;
  /** Where top-level channel messages are answered (`slack.replyInThread`; absent: `never`, top-level). */
  replyInThread?: SlackReplyInThread;
}

/** The fields of a `message` / `app_mention` event read here. */
export interface SlackMessageEvent {
  type: string;
  subtype?: string;
  channel: string;
  channel_type?: string;
  user?: string;
  bot_id?: string;
  username?: string;
  text?: string;
  ts: string;
  thread_ts?: string;
  files?: SlackFile[];
  attachments?: SlackAttachment[];
  user_profile?: { display_name?: string; real_name?: string; name?: string };
}

/** The fields of a `block_actions` payload read here. */
export interface SlackBlockActions {
  type: 'block_actions';
  trigger_id?: string;
  user: { id: string; username?: string; name?: string };
  container?: { message_ts?: string; channel_id?: string; thread_ts?: string };
  channel?: { id: string };
  message?: { ts: string; thread_ts?: string };
  actions: { action_id: string; value?: string; action_ts?: string }[];
}

/** The fields of a slash command request read here. */
export interface SlackSlashCommand {
  command: string;
  text?: string;
  trigger_id: string;
  user_id: string;
  user_name?: string;
  channel_id: string;
  channel_name?: string;
}

/** Message subtypes that are a person (or another bot) saying something; others are not events here. */
const conversationalSubtypes = new Set([undefined, 'file_share', 'thread_broadcast', 'bot_message', 'me_message']);

/** Slackbot's user id: its notices (in the bot's DM with it, in channels) are no one talking to the bot. */
export const slackbotUserId = 'USLACKBOT';

/** Whether a message is an app's or a bot's (posted with a `bot_id`, as a `bot_message`, or by Slackbot). */
export function isFromBot(event: Pick<SlackMessageEvent, 'bot_id' | 'subtype' | 'user'>): boolean {
  return (typeof event.bot_id === 'string' && event.bot_id !== '') || event.subtype === 'bot_message' || event.user === slackbotUserId;
}

function senderOf(event: SlackMessageEvent): Sender | undefined {
  const id = event.user ?? event.bot_id;
  if (id === undefined) return undefined;
  const profile = event.user_profile;
  const name = profile?.display_name || profile?.real_name || event.username;
  return {
    id,
    ...(name ? { name } : {}),
    ...(profile?.name ? { username: profile.name } : {}),
    isBot: isFromBot(event),
  };
}

/** A message's `ts` (`"1700000000.000100"`: seconds since the epoch) as `sentAt` in ms, if it is one. */
function sentAtOf(ts: string): { sentAt?: number } {
  const seconds = Number(ts);
  return Number.isFinite(seconds) && seconds > 0 ? { sentAt: Math.floor(seconds * 1000) } : {};
}

/** Whether the event is a message of this bot's own. */
export function isOwnMessage(event: Pick<SlackMessageEvent, 'user' | 'bot_id'>, bot: SlackIdentity): boolean {
  return (event.user !== undefined && event.user === bot.userId) || (event.bot_id !== undefined && event.bot_id === bot.botId);
}

/** A message or app_mention event as an {@link InboundMessage}, or undefined when it is not one to answer. */
export function toInboundMessage(event: SlackMessageEvent, context: InboundContext): InboundMessage | undefined {
  if (event.type !== 'message' && event.type !== 'app_mention') return undefined;
  if (event.type === 'message' && !conversationalSubtypes.has(event.subtype)) return undefined;
  if (isOwnMessage(event, context.bot)) return undefined;
  // Slackbot's notices are never answered; other apps' messages only where allowed.
  if (event.user === slackbotUserId || (isFromBot(event) && context.allowBots !== true)) return undefined;
  const sender = senderOf(event);
  if (!sender) return undefined;
  const attachments: Attachment[] = attachmentsOf(messageFilesOf(event), context.download);
  const analysis = analyzeText(event.text ?? '', context.bot.userId);
  // A shared or forwarded message's words are in its attachments, after the sender's own.
  const text = withForwarded(analysis.text, sharedContentOf(event.attachments, event.channel));
  if (text === '' && attachments.length === 0) return undefined;
  const mentioned = event.type === 'app_mention' || analysis.mentioned;
  const startThread = startsThread(context.replyInThread ?? 'never', mentioned);
  const conversation = conversationOf({ channel: event.channel, channelType: event.channel_type, userId: sender.id, threadTs: event.thread_ts, ts: event.ts, startThread });
  const message: InboundMessage = {
    id: event.ts,
    dedupeKey: `slack:${event.channel}:${event.ts}`,
    sessionKey: conversation.sessionKey,
    address: conversation.address,
    scope: conversation.scope,
    ...(conversation.scope === 'group' && { group: { kind: 'channel' as const, id: event.channel } }),
    sender,
    text,
    attachments,
    mentioned: conversation.scope === 'dm' || mentioned,
    ...(analysis.command ? { command: analysis.command } : {}),
    receivedAt: context.now(),
    ...sentAtOf(event.ts),
    raw: event,
  };
  return admitted(message, context.botTurns);
}

/** What a slash command that cannot be taken is answered with: Slack never delivers one again, so its sender alone is told. */
export const slashCommandBusyNotice = 'I could not take that just now. Please try again in a moment.';

/**
 * A slash command as an {@link InboundMessage}: its first word is the command, so
 * `/operator status x` is `command: { name: 'status', args: 'x' }` with text `/status x`, and a
 * bare `/operator` asks for `help`. Slack never redelivers a slash command; its `trigger_id` keys it.
 */
export function slashCommandToMessage(command: SlackSlashCommand, context: InboundContext): InboundMessage {
  const [first = 'help', ...rest] = (command.text ?? '').trim().split(/\s+/).filter(Boolean);
  const name = first.replace(/^\//, '').toLowerCase();
  const args = rest.join(' ');
  const conversation = conversationOf({ channel: command.channel_id, channelType: command.channel_name === 'directmessage' ? 'im' : undefined, userId: command.user_id });
  return {
    id: command.trigger_id,
    dedupeKey: `slack:command:${command.trigger_id}`,
    sessionKey: conversation.sessionKey,
    address: conversation.address,
    scope: conversation.scope,
    ...(conversation.scope === 'group' && { group: { kind: 'channel' as const, id: command.channel_id } }),
    sender: { id: command.user_id, ...(command.user_name ? { name: command.user_name, username: command.user_name } : {}), isBot: false },
    text: args === '' ? `/${name}` : `/${name} ${args}`,
    attachments: [],
    mentioned: true,
    command: { name, args },
    receivedAt: context.now(),
    raw: command,
  };
}

/** A button press (`block_actions`) as a {@link ChannelAction}, or undefined for one outside a message. */
export function toChannelAction(payload: SlackBlockActions): ChannelAction | undefined {
  const action = payload.actions[0];
  const channel = payload.container?.channel_id ?? payload.channel?.id;
  const messageTs = payload.container?.message_ts ?? payload.message?.ts;
  if (!action || channel === undefined || messageTs === undefined) return undefined;
  const threadTs = threadOf(payload.container?.thread_ts ?? payload.message?.thread_ts, messageTs);
  const conversation = conversationOf({ channel, channelType: isDirectMessage(channel) ? 'im' : undefined, userId: payload.user.id, threadTs, ts: messageTs });
  const id = payload.trigger_id ?? `${messageTs}:${action.action_ts ?? action.action_id}`;
  const name = payload.user.name ?? payload.user.username;
  return {
    id,
    dedupeKey: `slack:action:${id}`,
    sessionKey: conversation.sessionKey,
    address: conversation.address,
    sender: { id: payload.user.id, ...(name ? { name } : {}), ...(payload.user.username ? { username: payload.user.username } : {}), isBot: false },
    data: action.value ?? '',
    messageId: messageTs,
    raw: payload,
  };
}
