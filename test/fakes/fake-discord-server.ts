/**
 * A protocol-faithful fake of Discord for real discord.js clients, on one node:http port: the
 * REST API under `/api/v10` (JSON bodies, or multipart ones with `payload_json` and `files[n]`
 * parts; JSON errors `{ message, code }` with the HTTP status, 429s with `retry_after` and
 * rate-limit headers), the gateway websocket at `/gateway` (JSON, no compression) and attachment
 * downloads at `/attachments/...` (people's files and the bot's uploads). Tests script it
 * (dispatch a person's message, a slash command, a button press; redeliver; fail the next calls;
 * drop the gateway) and read what the bot did (its messages as they stand after edits,
 * interaction callbacks and follow-ups, commands, typing).
 *
 * @example
 * const discord = await startFakeDiscordServer();
 * const client = new Client({ intents: [GatewayIntentBits.Guilds], rest: { api: discord.apiUrl } });
 * await client.login(discord.token);
 * discord.messageCreate({ channelId: discord.world.channelId, content: 'hi' });
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIMessage, APIUser } from 'discord.js';
import { DiscordApiFailure, discordErrors, rateLimitHeaders, scriptedAnswer, type RestAnswer } from './fake-discord-answers.ts';
import { FakeApplicationKey, type FakeSignedInteraction, type FakeSignOptions } from './fake-discord-endpoint.ts';
import { createEvents, type FakeDiscordEvents } from './fake-discord-events.ts';
import { FakeGateway, type GatewaySession } from './fake-discord-gateway.ts';
import { FakeBuckets, type FakeRouteLimit } from './fake-discord-buckets.ts';
import { restRoutes, takeInteractionResponse } from './fake-discord-rest.ts';
import { readRestBody } from './fake-discord-uploads.ts';
import { FakeDiscordState, fakeUser, type FakeDiscordCall, type FakeDiscordFailure, type FakeInteractionCallback, type FakeStoredMessage } from './fake-discord-state.ts';
import { channelPayload, createWorld, guildCreatePayload, readyPayload, type FakeDiscordWorld } from './fake-discord-world.ts';

export type { FakeDiscordCall, FakeDiscordFailure, FakeInteractionCallback, FakeStoredMessage } from './fake-discord-state.ts';
export type { FakeDispatch, FakePersonMessage, FakeSlashCommand, FakeButtonPress } from './fake-discord-events.ts';
export type { FakeDiscordWorld } from './fake-discord-world.ts';
export type { FakeRouteLimit } from './fake-discord-buckets.ts';
export type { FakeSignedInteraction, FakeSignOptions } from './fake-discord-endpoint.ts';

/** Options of {@link startFakeDiscordServer}. */
export interface FakeDiscordOptions {
  /** The bot token the fake accepts (default: a well-formed fake one). */
  token?: string;
  /** The gateway's heartbeat interval in ms (default 41,250, as Discord). */
  heartbeatIntervalMs?: number;
  /** Whether the portal allows the Message Content intent (default true; else IDENTIFY closes with 4014). */
  messageContentAllowed?: boolean;
}

/** A running fake Discord. */
export interface FakeDiscord extends FakeDiscordEvents {
  /** `http://127.0.0.1:<port>/api`: what discord.js's `rest.api` takes. */
  readonly apiUrl: string;
  readonly origin: string;
  readonly token: string;
  readonly bot: APIUser;
  readonly applicationId: string;
  readonly world: FakeDiscordWorld;
  /** The application's public key (hex), the portal's "Public Key": what `DISCORD_PUBLIC_KEY` holds. */
  readonly publicKey: string;
  /** Every REST call, in arrival order. */
  readonly calls: readonly FakeDiscordCall[];
  /** Interaction callbacks (acknowledgements), in arrival order. */
  readonly callbacks: readonly FakeInteractionCallback[];
  /** The global commands as last overwritten. */
  readonly commands: readonly Record<string, unknown>[];
  /** Channel ids of typing calls, in order. */
  readonly typing: readonly string[];
  /** Gateway sessions and the frames clients sent. */
  readonly gateway: { readonly sessions: ReadonlyMap<string, GatewaySession>; readonly received: readonly { op: number; d?: unknown }[]; connected(): GatewaySession[] };
  /** Calls of one route (`createMessage`, `editMessage`, `interactionCallback`, ...). */
  callsOf(route: string): FakeDiscordCall[];
  /** The bot's messages in a channel (ephemeral follow-ups included), oldest first, as they stand after edits. */
  botMessages(channelId: string): FakeStoredMessage[];
  /** Any stored message by id. */
  message(id: string): FakeStoredMessage | undefined;
  /** A new public thread in a guild channel, announced with THREAD_CREATE. */
  addThread(parentId: string, name?: string): string;
  /** A new person with a DM channel to the bot; returns the channel id. */
  addDmChannel(name: string): { channelId: string; user: APIUser };
  /** A new text channel in the guild (announced with CHANNEL_CREATE to sessions already there); returns its id. */
  addChannel(name: string): string;
  /**
   * Sends a dispatch written elsewhere (a recorded frame) to every session as it is, keeping what
   * the fake must know to answer the bot about it: a message (for replies to it), a thread or
   * channel made or deleted, an interaction (so its callback is taken), the files it links on
   * this fake (`/attachments/...`, served as `files` says or a few bytes).
   */
  dispatchRaw(t: string, d: Record<string, unknown>, files?: (path: string) => { bytes: Uint8Array; contentType: string }): void;
  /** The bot removed from a guild (kicked, or the guild deleted): GUILD_DELETE without `unavailable`. */
  removeFromGuild(guildId: string): void;
  /**
   * An interaction as Discord POSTs it to an app's Interactions Endpoint URL: the raw JSON body of
   * `payload` (a `slashCommand` / `buttonPress` payload, or a PING) and its signature headers.
   */
  signedInteraction(payload: unknown, options?: FakeSignOptions): FakeSignedInteraction;
  /**
   * Takes the endpoint's HTTP answer to interaction `interactionId` (its JSON) as that
   * interaction's response, as Discord does: a deferred one (type 5) makes the original response.
   */
  endpointAnswered(interactionId: string, answer: unknown): void;
  /** Answers the next call(s) of `route` with an error, or drops the connection. */
  failNext(route: string, failure: FakeDiscordFailure): void;
  /** Enforces a rate limit on `route` per channel from now on: `limit` calls per `resetAfter` seconds, then 429s. */
  limitRoute(route: string, limit: FakeRouteLimit): void;
  /** Closes every gateway connection with `code` (4000: the client resumes; 1000: it identifies anew). */
  disconnectGateway(code?: number): void;
  /** Resolves with the predicate's first truthy value, checked on every change; rejects after `timeoutMs`. */
  waitFor<T>(predicate: (discord: FakeDiscord) => T | undefined | null | false, timeoutMs?: number): Promise<T>;
  close(): Promise<void>;
}

/** Starts a fake Discord on a free local port. */
export async function startFakeDiscordServer(options: FakeDiscordOptions = {}): Promise<FakeDiscord> {
  const token = options.token ?? 'MTEwMDAwMDAwMDAwMDAwMDAx.GfAkEt.fake-discord-bot-token_for_tests_only';
  const applicationId = '1100000000000000001';
  const state = new FakeDiscordState({ token, applicationId, bot: fakeUser(applicationId, 'Operator', { bot: true }), messageContentAllowed: options.messageContentAllowed ?? true });
  const world = createWorld(state);
  const buckets = new FakeBuckets();
  const applicationKey = new FakeApplicationKey();
  let origin = '';
  const gateway = new FakeGateway(
    {
      token,
      ready: () => readyPayload(state),
      guildCreates: () => [...state.guilds.keys()].map((id) => guildCreatePayload(state, id)),
      messageContentAllowed: state.messageContentAllowed,
      notify: () => state.notify(),
    },
    { heartbeatIntervalMs: options.heartbeatIntervalMs ?? 41_250, origin: () => origin },
  );

  function write(response: ServerResponse, answer: RestAnswer, route: string): void {
    const headers = { ...(answer.status < 400 ? rateLimitHeaders(route) : {}), ...answer.headers, ...(answer.body !== undefined ? { 'content-type': 'application/json' } : {}) };
    response.writeHead(answer.status, headers).end(answer.body !== undefined ? JSON.stringify(answer.body) : undefined);
  }

  async function answerRest(request: IncomingMessage, response: ServerResponse, path: string, query: URLSearchParams): Promise<void> {
    const route = restRoutes.find((candidate) => candidate.method === request.method && candidate.pattern.test(path));
    const { body, uploads } = await readRestBody(request);
    const call: FakeDiscordCall = { route: route?.name ?? 'unknown', method: request.method ?? 'GET', path, body, status: 0 };
    state.calls.push(call);
    let answer: RestAnswer;
    const bucket = route ? buckets.take(route.name, path) : undefined;
    const failure = route && !(bucket && 'refused' in bucket) ? state.takeFailure(route.name, body, path) : undefined;
    if (failure && 'dropConnection' in failure) {
      if (failure.afterCarryingOut && route && !(bucket && 'refused' in bucket)) {
        try {
          route.handle({ state, params: route.pattern.exec(path)!.slice(1), body, uploads, origin, query });
        } catch (error) {
          if (!(error instanceof DiscordApiFailure)) throw error;
        }
      }
      state.notify();
      response.socket?.destroy();
      return;
    }
    try {
      if (!route) throw discordErrors.notFound();
      if (route.botAuth && request.headers.authorization !== `Bot ${token}`) throw discordErrors.unauthorized();
      if (bucket && 'refused' in bucket) answer = bucket.refused;
      else answer = failure ? scriptedAnswer(route.name, failure) : route.handle({ state, params: route.pattern.exec(path)!.slice(1), body, uploads, origin, query });
      if (bucket && 'headers' in bucket && !failure) answer = { ...answer, headers: { ...bucket.headers, ...answer.headers } };
    } catch (error) {
      if (!(error instanceof DiscordApiFailure)) throw error;
      answer = error.answer();
    }
    call.status = answer.status;
    state.notify();
    write(response, answer, route?.name ?? 'unknown');
  }

  function serveAttachment(response: ServerResponse, path: string): void {
    const file = state.attachments.get(path);
    if (!file) return void response.writeHead(404, { 'content-type': 'text/plain' }).end('This content is no longer available.');
    response.writeHead(200, { 'content-type': file.contentType, 'content-length': file.bytes.length }).end(file.bytes);
  }

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    if (url.pathname.startsWith('/api/v10/')) {
      answerRest(request, response, url.pathname.slice('/api/v10'.length), url.searchParams).catch((error: unknown) => {
        if (!response.headersSent) write(response, { status: 500, body: { message: `500: ${String(error)}`, code: 0 } }, 'error');
      });
      return;
    }
    if (url.pathname.startsWith('/attachments/') && request.method === 'GET') return serveAttachment(response, url.pathname);
    write(response, { status: 404, body: { message: '404: Not Found', code: 0 } }, 'unknown');
  });
  server.on('upgrade', (request, socket, head) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (path === '/gateway' || path === '/gateway/') gateway.upgrade(request, socket, head);
    else socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const discord: FakeDiscord = {
    ...createEvents(state, gateway, () => origin, () => world.person),
    apiUrl: `${origin}/api`,
    origin,
    token,
    bot: state.bot,
    applicationId,
    publicKey: applicationKey.publicKey,
    world,
    get calls() {
      return state.calls;
    },
    get callbacks() {
      return state.callbacks;
    },
    get commands() {
      return state.commands as Record<string, unknown>[];
    },
    get typing() {
      return state.typing;
    },
    gateway: { sessions: gateway.sessions, received: gateway.received, connected: () => gateway.connected() },
    callsOf: (route) => state.calls.filter((call) => call.route === route),
    botMessages: (channelId) => state.channelMessages(channelId).filter((stored) => stored.message.author.id === state.bot.id),
    message: (id) => state.messages.get(id),
    addThread(parentId, name = 'another thread') {
      const parent = state.channels.get(parentId);
      const channel = { id: state.snowflake(), type: 11 as const, name, guildId: parent?.guildId, parentId };
      state.channels.set(channel.id, channel);
      gateway.dispatch('THREAD_CREATE', { ...channelPayload(channel), newly_created: true });
      return channel.id;
    },
    removeFromGuild(guildId) {
      gateway.dispatch('GUILD_DELETE', { id: guildId });
    },
    addDmChannel(name) {
      const user = fakeUser(state.snowflake(), name);
      const channelId = state.snowflake();
      state.channels.set(channelId, { id: channelId, type: 1, recipient: user });
      return { channelId, user };
    },
    addChannel(name) {
      const channel = { id: state.snowflake(), type: 0 as const, name, guildId: world.guildId };
      state.channels.set(channel.id, channel);
      gateway.dispatch('CHANNEL_CREATE', channelPayload(channel));
      return channel.id;
    },
    dispatchRaw(t, d, files) {
      rememberRaw(state, t, d, origin, files);
      gateway.dispatch(t, d);
    },
    signedInteraction: (payload, signOptions) => applicationKey.sign(payload, signOptions),
    endpointAnswered(interactionId, answer) {
      const interaction = state.interactions.get(interactionId);
      if (!interaction) throw new Error(`fake Discord: no interaction ${interactionId}`);
      takeInteractionResponse(state, interaction, answer);
    },
    failNext(route, failure) {
      const queue = state.failures.get(route) ?? [];
      queue.push(failure);
      state.failures.set(route, queue);
    },
    limitRoute: (route, limit) => buckets.limit(route, limit),
    disconnectGateway: (code = 4000) => gateway.disconnect(code),
    waitFor: (predicate, timeoutMs = 30_000) => state.waitFor(() => predicate(discord), timeoutMs, 'fake Discord'),
    async close() {
      gateway.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        setImmediate(() => server.closeAllConnections());
      });
    },
  };
  return discord;
}

/** What the fake keeps of a recorded dispatch, so it can answer the bot's calls about it (see `dispatchRaw`). */
function rememberRaw(state: FakeDiscordState, t: string, d: Record<string, unknown>, origin: string, files?: (path: string) => { bytes: Uint8Array; contentType: string }): void {
  const id = String(d.id ?? '');
  if (t === 'MESSAGE_CREATE') state.messages.set(id, { message: d as unknown as APIMessage, edits: 0 });
  if ((t === 'THREAD_CREATE' || t === 'CHANNEL_CREATE') && typeof d.type === 'number' && [0, 1, 11].includes(d.type)) {
    state.channels.set(id, { id, type: d.type as 0 | 1 | 11, name: typeof d.name === 'string' ? d.name : undefined, guildId: typeof d.guild_id === 'string' ? d.guild_id : undefined, parentId: typeof d.parent_id === 'string' ? d.parent_id : undefined });
  }
  if (t === 'THREAD_DELETE') state.channels.delete(id);
  if (t === 'INTERACTION_CREATE' && typeof d.token === 'string') {
    const channelId = String(d.channel_id ?? (d.channel as { id?: string } | undefined)?.id ?? '');
    state.interactions.set(id, { id, token: d.token, channelId });
  }
  for (const url of JSON.stringify(d).match(new RegExp(`${origin.replace(/[.]/g, '\\.')}/attachments/[^"?]+`, 'g')) ?? []) {
    const path = url.slice(origin.length);
    if (!state.attachments.has(path)) state.attachments.set(path, files?.(path) ?? { bytes: new TextEncoder().encode('attachment'), contentType: 'application/octet-stream' });
  }
}
