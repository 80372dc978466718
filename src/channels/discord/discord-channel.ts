/**
 * The Discord channel: a discord.js `Client` for the gateway behind the neutral
 * {@link ChannelAdapter} contract. The client connects, keeps the websocket alive (heartbeats,
 * resumes) and caches guild channels and threads; the adapter reads messages and interactions as
 * raw gateway payloads and sends through its own REST client, so nothing depends on what
 * discord.js keeps in its caches, which are cut down to almost nothing (see `client-options.ts`).
 * A new `Client` is made for every `start`: a stopped one would wait out its identify throttle
 * (5 s) before connecting again.
 */
import { watchMembership } from './membership.ts';
import { Client, Events, GatewayDispatchEvents, Routes, type APIInteraction, type GatewayMessageCreateDispatchData, type GatewayMessageUpdateDispatchData } from 'discord.js';
import { DeliveryError, type ChannelAdapter, type ChannelCapabilities, type ChannelHandlers } from '../types.ts';
import { fetchAttachmentBytes } from './attachments.ts';
import { createCallDiscord, createRest, type RetryPolicy } from './call-discord.ts';
import { createChannelKinds, createGuildOf } from './channel-kinds.ts';
import { discordClientOptions } from './client-options.ts';
import { createScrub, describeError, toDeliveryError, type Scrub } from './discord-errors.ts';
import { discordMaxLength } from './format/max-length.ts';
import { loadFormatter } from './format/load-formatter.ts';
import { defaultCatchUp, planCatchUp, type CatchUpContext, type CatchUpSettings } from './catch-up.ts';
import { createGatewayEvents } from './gateway-events.ts';
import { createBotTurns, defaultBotTurns } from '../bot-turns.ts';
import { createChannelName } from './forwards.ts';
import type { InboundContext } from './inbound.ts';
import { InteractionTokens } from './interaction-tokens.ts';
import { watchLink } from './link-events.ts';
import { createDiscordOutbound } from './outbound.ts';
import { createLinkStatus } from '../link-status.ts';
import { createOutsideErrors } from '../outside-errors.ts';
import { guardPackets } from './packet-guard.ts';
import { reportingRateLimits } from '../rate-limit-retry.ts';
import { markdownWarmUpSample } from '../markdown/warm-up-sample.ts';

/** Options of {@link createDiscordChannel}. */
export interface DiscordChannelOptions {
  /** The bot token from the developer portal. Never logged. */
  token: string;
  /** The REST base, e.g. `http://127.0.0.1:PORT/api` (default Discord's, `https://discord.com/api`). */
  apiUrl?: string;
  /** Hand over messages of other bots and webhooks too (default false: people only). */
  allowBots?: boolean;
  /** With `allowBots`: how many bots' messages in a row one conversation takes before a person writes again (default 5). */
  botTurns?: number;
  /** Hand over messages their authors edit (MESSAGE_UPDATE with a new edit stamp), marked `edited` (default false). */
  editedMessages?: boolean;
  /** Rate-limit retries (default: 3 attempts, waits up to 30 s honoured in place). */
  retry?: Partial<RetryPolicy>;
  /** How long `start` may take to log in and be ready, in ms (default 30,000). */
  startTimeoutMs?: number;
  /** How long one REST call may take, in ms (default 15,000). */
  requestTimeoutMs?: number;
  /** Where problems are reported (default stderr). Lines never contain the token. */
  log?: (line: string) => void;
  /** The clock for `receivedAt` and interaction windows (default `Date.now`). */
  now?: () => number;
  /**
   * Messages sent while no session was connected, read from the history of the conversations
   * the gateway talked in lately (default {@link defaultCatchUp}: the last hour; `windowMs: 0`
   * turns it off).
   */
  catchUp?: Partial<CatchUpSettings>;
}

const capabilities: ChannelCapabilities = {
  edit: true,
  typing: true,
  buttons: true,
  threads: true,
  maxLength: discordMaxLength,
  // Discord allows 5 edits of a message per 5 s per channel; one a second leaves room for the
  // other messages of the conversation in the same bucket.
  editIntervalMs: 1_000,
  commandMenu: true,
  maxFileBytes: 10 * 1024 * 1024,
};

/** A start failure as a {@link DeliveryError} that tells what to fix. */
function startError(error: unknown, scrub: Scrub): DeliveryError {
  const code = (error as { code?: unknown } | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'TokenInvalid' || /authentication failed/i.test(message)) {
    return new DeliveryError('Discord refused the bot token (401 Unauthorized): check DISCORD_BOT_TOKEN', { retryable: false });
  }
  if (/disallowed intents/i.test(message)) {
    return new DeliveryError('Discord refused the gateway intents: enable the Message Content intent for the bot in the developer portal', { retryable: false });
  }
  return toDeliveryError(error, 'login', scrub);
}

/**
 * Creates the Discord adapter.
 *
 * @example
 * const discord = createDiscordChannel({ token: process.env.DISCORD_BOT_TOKEN! });
 * await discord.start({ onMessage, onAction });
 * await discord.send({ platform: 'discord', conversationId: channelId }, { text: '**Hello**' });
 */
export function createDiscordChannel(options: DiscordChannelOptions): ChannelAdapter {
  const scrub = createScrub(options.token);
  const log = (line: string) => (options.log ?? ((text: string) => console.error(text)))(scrub(line));
  const now = options.now ?? Date.now;
  const rest = createRest(options.apiUrl, options.token, options.requestTimeoutMs ?? 15_000);
  let client: Client | undefined;
  let handlers: ChannelHandlers | undefined;
  const link = createLinkStatus({ status: () => handlers?.status, scrub, log, platform: 'discord' });
  const outside = createOutsideErrors({ status: () => handlers?.status, scrub, log, platform: 'discord' });
  const call = createCallDiscord(rest, reportingRateLimits(options.retry, (waitMs) => link.rateLimited(waitMs)), scrub);
  const tokens = new InteractionTokens(now);
  let applicationId: string | undefined;

  const outbound = createDiscordOutbound({
    call,
    tokens,
    log,
    maxFileBytes: capabilities.maxFileBytes,
    async applicationId() {
      applicationId ??= (await call<{ id: string }>('getCurrentApplication', (api) => api.get(Routes.currentApplication()))).id;
      return applicationId;
    },
  });
  const channelName = createChannelName(() => client);
  const botTurns = options.allowBots ? createBotTurns(options.botTurns ?? defaultBotTurns) : undefined;
  const events = createGatewayEvents({
    handlers: () => handlers,
    // Known from READY on, which comes before any message.
    inbound: (): InboundContext | undefined => (client?.user ? { botId: client.user.id, fetchBytes: fetchAttachmentBytes, now, channelName, ...(botTurns && { botTurns }) } : undefined),
    allowBots: options.allowBots ?? false,
    channelKinds: createChannelKinds(() => client, log),
    guildOf: createGuildOf(() => client, log),
    call,
    tokens,
    outbound,
    log,
    scrub,
    outside,
  });

  const catchUpContext: CatchUpContext = {
    call,
    conversations: async (since, limit) => (await handlers?.recentConversations?.(since, limit)) ?? [],
    settings: { ...defaultCatchUp, ...options.catchUp },
    now,
    log,
    scrub,
  };

  async function connect(current: Client, timeoutMs: number): Promise<void> {
    const ready = new Promise<void>((resolve) => current.once(Events.ClientReady, () => resolve()));
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new DeliveryError(`Discord login failed: not ready within ${timeoutMs} ms`, { retryable: true })), timeoutMs);
    });
    const login = current.login(options.token).then(() => ready);
    login.catch(() => undefined);
    try {
      await Promise.race([login, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    platform: 'discord',
    capabilities,

    async start(startHandlers) {
      if (client) throw new Error('discord: already started');
      const current = new Client(discordClientOptions(options.apiUrl));
      client = current;
      current.on(Events.Error, (error) => log(`discord: client error: ${describeError(error, scrub)}`));
      current.on(Events.ShardDisconnect, (event) => log(`discord: gateway closed for good (code ${event.code})`));
      watchLink(current, link, () => client === current);
      // A dispatch discord.js cannot digest (or one of ours throwing on it) is dropped and
      // reported; it must not end the process (see `packet-guard.ts`). The raw listeners run
      // inside discord.js's dispatch too, so they get the same boundary.
      guardPackets(current, outside);
      // Removed from a server, or a channel deleted: the scheduled jobs there stop.
      watchMembership(current, (change) => {
        void handlers?.onMembership?.(change).catch((error: unknown) => log(`discord: handler failed for ${change.dedupeKey}: ${describeError(error, scrub)}`));
      });
      current.ws.on(GatewayDispatchEvents.MessageCreate, (payload: GatewayMessageCreateDispatchData) => outside.guard(GatewayDispatchEvents.MessageCreate, () => events.messageCreate(payload)));
      if (options.editedMessages) current.ws.on(GatewayDispatchEvents.MessageUpdate, (payload: GatewayMessageUpdateDispatchData) => outside.guard(GatewayDispatchEvents.MessageUpdate, () => events.messageUpdate(payload)));
      current.ws.on(GatewayDispatchEvents.InteractionCreate, (payload: APIInteraction) => outside.guard(GatewayDispatchEvents.InteractionCreate, () => events.interactionCreate(payload)));
      // Every new session (start-up, a re-identify) reads what was sent while none was connected.
      // The raw READY comes in order with the messages after it, so the missed ones go first.
      current.ws.on(GatewayDispatchEvents.Ready, () => outside.guard(GatewayDispatchEvents.Ready, () => events.catchUp(() => planCatchUp(catchUpContext))));
      handlers = startHandlers;
      try {
        await connect(current, options.startTimeoutMs ?? 30_000);
      } catch (error) {
        client = undefined;
        handlers = undefined;
        await current.destroy().catch(() => undefined);
        throw error instanceof DeliveryError ? error : startError(error, scrub);
      }
      applicationId = current.application?.id ?? applicationId;
      link.started();
    },

    async stop() {
      const current = client;
      client = undefined;
      handlers = undefined;
      link.stopped();
      await current?.destroy();
      await events.settled();
    },

    async warm() {
      (await loadFormatter()).formatDiscordMessage(markdownWarmUpSample);
    },

    send: (address, message) => outbound.send(address, message),
    edit: (address, messageId, message) => outbound.edit(address, messageId, message),
    typing: (address) => outbound.typing(address),
    setCommands: (commands) => outbound.setCommands(commands),
    answerAction: (action, text) => outbound.answerAction(action, text),
  };
}
