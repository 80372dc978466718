/**
 * The REST routes of the fake Discord under `/api/v10`, named after Discord's documentation:
 * gateway discovery, the current user and application, channels, messages, typing, global
 * application commands, interaction responses and follow-ups. Bot routes want
 * `Authorization: Bot <token>`; interaction and webhook routes are authorised by their token.
 */
import { discordErrors, fieldError, type RestAnswer } from './fake-discord-answers.ts';
import { createBotMessage, editStoredMessage, type MessageBody } from './fake-discord-messages.ts';
import type { FakeDiscordState, FakeInteraction, FakeStoredMessage } from './fake-discord-state.ts';
import type { FakeUpload } from './fake-discord-uploads.ts';

/** What a route handler gets. */
export interface RouteContext {
  state: FakeDiscordState;
  params: string[];
  body: unknown;
  /** The `files[n]` parts of a multipart request (none for JSON). */
  uploads: FakeUpload[];
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  /** The request's query string. */
  query: URLSearchParams;
}

/** One REST route. */
export interface RestRoute {
  name: string;
  method: string;
  pattern: RegExp;
  /** Needs the bot token (else the path's own token authorises it). */
  botAuth: boolean;
  handle(context: RouteContext): RestAnswer;
}

const ok = (body: unknown): RestAnswer => ({ status: 200, body });
const noContent: RestAnswer = { status: 204 };

function channelOf(context: RouteContext) {
  const channel = context.state.channels.get(context.params[0]!);
  if (!channel) throw discordErrors.unknownChannel();
  return channel;
}

function botMessageOf(context: RouteContext): FakeStoredMessage {
  const stored = context.state.messages.get(context.params[1]!);
  if (!stored || stored.message.channel_id !== context.params[0]) throw discordErrors.unknownMessage();
  return stored;
}

function interactionOf(context: RouteContext, tokenIndex: number): FakeInteraction {
  if (context.params[0] !== context.state.applicationId && tokenIndex === 1) throw discordErrors.unknownWebhook();
  const token = context.params[tokenIndex]!;
  const interaction = [...context.state.interactions.values()].find((candidate) => candidate.token === token);
  if (!interaction) throw tokenIndex === 1 ? discordErrors.unknownWebhook() : discordErrors.unknownInteraction();
  return interaction;
}

/**
 * A channel's messages as Discord lists them: `limit` (1–100, default 50) of them, `after` or
 * `before` a message id (the ones right after or before it) or else the newest, always sorted
 * newest first.
 */
function channelHistory(context: RouteContext): unknown[] {
  const channel = channelOf(context);
  const limit = Number(context.query.get('limit') ?? 50);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw discordErrors.invalidForm({ limit: fieldError('NUMBER_TYPE_MAX', 'int value should be less than or equal to 100.') });
  const after = context.query.get('after');
  const before = context.query.get('before');
  const ascending = context.state.channelMessages(channel.id).map((stored) => stored.message).sort((a, b) => compareIds(a.id, b.id));
  let page: typeof ascending;
  if (after !== null) page = ascending.filter((message) => compareIds(message.id, after) > 0).slice(0, limit);
  else if (before !== null) page = ascending.filter((message) => compareIds(message.id, before) < 0).slice(-limit);
  else page = ascending.slice(-limit);
  return page.reverse();
}

function compareIds(a: string, b: string): number {
  const [x, y] = [BigInt(a), BigInt(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}

function channelObject(context: RouteContext) {
  const channel = channelOf(context);
  if (channel.type === 1) return { id: channel.id, type: 1, last_message_id: null, flags: 0, recipients: [channel.recipient] };
  return { id: channel.id, type: channel.type, guild_id: channel.guildId, name: channel.name, parent_id: channel.parentId ?? null, position: 0, permission_overwrites: [], flags: 0, ...(channel.type === 11 ? { thread_metadata: { archived: false, auto_archive_duration: 1440, archive_timestamp: new Date().toISOString(), locked: false } } : {}) };
}

const commandName = /^[-_\p{L}\p{N}]{1,32}$/u;

function overwriteCommands(context: RouteContext): RestAnswer {
  if (context.params[0] !== context.state.applicationId) throw discordErrors.unknownApplication();
  const commands = Array.isArray(context.body) ? (context.body as Record<string, unknown>[]) : [];
  const errors: Record<string, unknown> = {};
  commands.forEach((command, index) => {
    const name = String(command.name ?? '');
    if (!commandName.test(name) || name !== name.toLowerCase()) errors[`${index}.name`] = fieldError('APPLICATION_COMMAND_INVALID_NAME', 'Command name is invalid');
    const description = String(command.description ?? '');
    if (description.length < 1 || description.length > 100) errors[`${index}.description`] = fieldError('BASE_TYPE_BAD_LENGTH', 'Must be between 1 and 100 in length.');
  });
  if (commands.length > 100) errors._errors = [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 100 or fewer in length.' }];
  if (Object.keys(errors).length > 0) throw discordErrors.invalidForm(errors);
  context.state.commands = commands.map((command) => ({ id: context.state.snowflake(), application_id: context.state.applicationId, version: context.state.snowflake(), type: 1, ...command }));
  context.state.notify();
  return ok(context.state.commands);
}

/**
 * Takes `response` as the interaction's one response, whether it came as a callback
 * (`POST /interactions/{id}/{token}/callback`) or as the app's HTTP answer to the interaction
 * Discord POSTed to its Interactions Endpoint URL: a second response is refused.
 */
export function takeInteractionResponse(state: FakeDiscordState, interaction: FakeInteraction, response: unknown): void {
  if (state.callbacks.some((callback) => callback.interactionId === interaction.id)) throw discordErrors.alreadyAcknowledged();
  const { type, data } = (response ?? {}) as { type: number; data?: MessageBody };
  state.callbacks.push({ interactionId: interaction.id, token: interaction.token, type, ...(data ? { data } : {}) });
  if (type === 4 || type === 5) {
    // The original response exists from now on; a deferred one shows "thinking" (LOADING, 128).
    const body: MessageBody = type === 4 ? (data ?? {}) : {};
    const loading = type === 5 ? { flags: 128 | ((data?.flags ?? 0) & 64) } : {};
    const stored = createBotMessage(state, interaction.channelId, body, { interactionToken: interaction.token, message: { ...loading, interaction_metadata: { id: interaction.id, type: 2, user: state.bot, authorizing_integration_owners: {} } } as never });
    interaction.originalMessageId = stored.message.id;
  }
  state.notify();
}

function interactionCallback(context: RouteContext): RestAnswer {
  const interaction = context.state.interactions.get(context.params[0]!);
  if (!interaction || interaction.token !== context.params[1]) throw discordErrors.unknownInteraction();
  takeInteractionResponse(context.state, interaction, context.body);
  return noContent;
}

function webhookMessage(context: RouteContext): FakeStoredMessage {
  const interaction = interactionOf(context, 1);
  const id = context.params[2] === '@original' ? interaction.originalMessageId : context.params[2];
  const stored = id === undefined ? undefined : context.state.messages.get(id);
  if (!stored || stored.interactionToken !== interaction.token) throw discordErrors.unknownMessage();
  return stored;
}

/** Every route the fake serves. */
export const restRoutes: RestRoute[] = [
  {
    name: 'getGatewayBot',
    method: 'GET',
    pattern: /^\/gateway\/bot$/,
    botAuth: true,
    handle: ({ origin }) => ok({ url: `${origin.replace(/^http/, 'ws')}/gateway`, shards: 1, session_start_limit: { total: 1000, remaining: 999, reset_after: 14_400_000, max_concurrency: 1 } }),
  },
  { name: 'getCurrentUser', method: 'GET', pattern: /^\/users\/@me$/, botAuth: true, handle: ({ state }) => ok(state.bot) },
  {
    name: 'getCurrentApplication',
    method: 'GET',
    pattern: /^\/applications\/@me$/,
    botAuth: true,
    // The portal's Message Content toggle of an app in under 100 servers sets GATEWAY_MESSAGE_CONTENT_LIMITED (1 << 19).
    handle: ({ state }) => ok({ id: state.applicationId, name: state.bot.username, icon: null, description: '', bot_public: true, bot_require_code_grant: false, verify_key: '0'.repeat(64), flags: state.messageContentAllowed ? 1 << 19 : 0, bot: state.bot }),
  },
  { name: 'getChannel', method: 'GET', pattern: /^\/channels\/(\d+)$/, botAuth: true, handle: (context) => ok(channelObject(context)) },
  {
    name: 'createMessage',
    method: 'POST',
    pattern: /^\/channels\/(\d+)\/messages$/,
    botAuth: true,
    handle: (context) => ok(createBotMessage(context.state, channelOf(context).id, (context.body ?? {}) as MessageBody, {}, { uploads: context.uploads, origin: context.origin }).message),
  },
  { name: 'getChannelMessages', method: 'GET', pattern: /^\/channels\/(\d+)\/messages$/, botAuth: true, handle: (context) => ok(channelHistory(context)) },
  { name: 'getMessage', method: 'GET', pattern: /^\/channels\/(\d+)\/messages\/(\d+)$/, botAuth: true, handle: (context) => ok(botMessageOf(context).message) },
  {
    name: 'editMessage',
    method: 'PATCH',
    pattern: /^\/channels\/(\d+)\/messages\/(\d+)$/,
    botAuth: true,
    handle(context) {
      const stored = botMessageOf(context);
      if (stored.message.author.id !== context.state.bot.id) throw discordErrors.otherAuthor();
      return ok(editStoredMessage(context.state, stored, (context.body ?? {}) as MessageBody));
    },
  },
  {
    name: 'triggerTyping',
    method: 'POST',
    pattern: /^\/channels\/(\d+)\/typing$/,
    botAuth: true,
    handle(context) {
      context.state.typing.push(channelOf(context).id);
      context.state.notify();
      return noContent;
    },
  },
  { name: 'bulkOverwriteCommands', method: 'PUT', pattern: /^\/applications\/(\d+)\/commands$/, botAuth: true, handle: overwriteCommands },
  { name: 'getCommands', method: 'GET', pattern: /^\/applications\/(\d+)\/commands$/, botAuth: true, handle: ({ state }) => ok(state.commands) },
  { name: 'interactionCallback', method: 'POST', pattern: /^\/interactions\/(\d+)\/([^/]+)\/callback$/, botAuth: false, handle: interactionCallback },
  {
    name: 'editWebhookMessage',
    method: 'PATCH',
    pattern: /^\/webhooks\/(\d+)\/([^/]+)\/messages\/(@original|\d+)$/,
    botAuth: false,
    handle: (context) => ok(editStoredMessage(context.state, webhookMessage(context), (context.body ?? {}) as MessageBody)),
  },
  { name: 'getWebhookMessage', method: 'GET', pattern: /^\/webhooks\/(\d+)\/([^/]+)\/messages\/(@original|\d+)$/, botAuth: false, handle: (context) => ok(webhookMessage(context).message) },
  {
    name: 'createFollowup',
    method: 'POST',
    pattern: /^\/webhooks\/(\d+)\/([^/]+)$/,
    botAuth: false,
    handle(context) {
      const interaction = interactionOf(context, 1);
      if (!context.state.callbacks.some((callback) => callback.interactionId === interaction.id)) throw discordErrors.unknownWebhook();
      const body = (context.body ?? {}) as MessageBody;
      const ephemeral = ((body.flags ?? 0) & 64) !== 0;
      return ok(createBotMessage(context.state, interaction.channelId, body, { interactionToken: interaction.token, ...(ephemeral ? { ephemeral } : {}) }).message);
    },
  },
];
