/**
 * The fake Discord itself, driven by a real discord.js client and by plain HTTP: login and ready
 * without the 15 s guild wait, dispatches with increasing sequence numbers, heartbeats, resume
 * with replay, REST answers and errors as Discord gives them, interactions and attachments.
 */
import { Client, DiscordAPIError, Events, GatewayDispatchEvents, GatewayIntentBits, REST, RateLimitError, Routes, type APIMessage, type Message } from 'discord.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
// discord.js's own undici, whatever another test file in the same worker loaded first.
import { discordAgent } from '../../src/channels/discord/own-agent.ts';
import { startFakeDiscordServer, type FakeDiscord } from './fake-discord-server.ts';

let discord: FakeDiscord;
const clients: Client[] = [];

beforeEach(async () => {
  discord = await startFakeDiscordServer({ heartbeatIntervalMs: 200 });
});

afterEach(async () => {
  for (const client of clients.splice(0)) await client.destroy();
  await discord.close();
});

async function loggedIn(intents = [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent, GatewayIntentBits.DirectMessages]): Promise<Client> {
  const client = new Client({ intents, rest: { api: discord.apiUrl, agent: discordAgent() } });
  clients.push(client);
  const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
  await client.login(discord.token);
  await ready;
  return client;
}

function rest(): REST {
  return new REST({ api: discord.apiUrl, agent: discordAgent(), retries: 0, rejectOnRateLimit: () => true }).setToken(discord.token);
}

describe('fake Discord gateway', () => {
  it('logs a discord.js client in and makes it ready with its guild, channel and thread', async () => {
    const client = await loggedIn();
    expect(client.user?.id).toBe(discord.bot.id);
    expect(client.application?.id).toBe(discord.applicationId);
    const thread = client.channels.cache.get(discord.world.threadId);
    expect(thread?.isThread() && thread.parentId).toBe(discord.world.channelId);
    expect(client.guilds.cache.get(discord.world.guildId)?.name).toBe('Operator Test Guild');
    expect(discord.callsOf('getGatewayBot')).toHaveLength(1);
  });

  it('delivers a person\'s message as messageCreate, with increasing sequence numbers', async () => {
    const client = await loggedIn();
    const received = new Promise<Message>((resolve) => client.once(Events.MessageCreate, resolve));
    const { payload } = discord.messageCreate({ channelId: discord.world.channelId, content: `hi <@${discord.bot.id}>` });
    const message = await received;
    expect(message).toMatchObject({ id: payload.id, content: `hi <@${discord.bot.id}>` });
    expect(message.mentions.users.has(discord.bot.id)).toBe(true);
    const [session] = discord.gateway.connected();
    expect(session!.sent.map((entry) => entry.s)).toEqual(session!.sent.map((_, index) => index + 1));
    expect(session!.sent.map((entry) => entry.t).slice(0, 3)).toEqual(['READY', 'GUILD_CREATE', 'MESSAGE_CREATE']);
  });

  it('hides message content from a session without the Message Content intent, except mentions and DMs', async () => {
    const client = await loggedIn([GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.DirectMessages]);
    const raw: APIMessage[] = [];
    client.ws.on(GatewayDispatchEvents.MessageCreate, (data: APIMessage) => void raw.push(data));
    discord.messageCreate({ channelId: discord.world.channelId, content: 'secret' });
    discord.messageCreate({ channelId: discord.world.channelId, content: `<@${discord.bot.id}> visible` });
    discord.messageCreate({ channelId: discord.world.dmChannelId, content: 'dm text' });
    await discord.waitFor(() => raw.length === 3);
    expect(raw.map((message) => message.content)).toEqual(['', `<@${discord.bot.id}> visible`, 'dm text']);
  });

  it('refuses a disallowed intent with close code 4014 and a bad token with 401', async () => {
    await discord.close();
    discord = await startFakeDiscordServer({ messageContentAllowed: false });
    await expect(loggedIn()).rejects.toThrow(/disallowed intents/i);
    await expect(new Client({ intents: [], rest: { api: discord.apiUrl, agent: discordAgent() } }).login('wrong')).rejects.toMatchObject({ code: 'TokenInvalid' });
  });

  it('answers heartbeats, and replays missed dispatches when the client resumes', async () => {
    const client = await loggedIn();
    await discord.waitFor((fake) => fake.gateway.received.some((frame) => frame.op === 1));
    const ids: string[] = [];
    client.ws.on(GatewayDispatchEvents.MessageCreate, (data: APIMessage) => void ids.push(data.id));
    const [session] = discord.gateway.connected();
    discord.disconnectGateway(4000);
    const missed = discord.messageCreate({ channelId: discord.world.channelId, content: 'while away' });
    await discord.waitFor((fake) => fake.gateway.received.some((frame) => frame.op === 6));
    await discord.waitFor(() => ids.includes(missed.payload.id));
    expect(discord.gateway.sessions.size).toBe(1);
    expect(session!.sent.at(-1)!.t).toBe('RESUMED');
  });
});

describe('fake Discord REST', () => {
  it('creates, edits and reads messages, and answers Discord\'s JSON errors', async () => {
    const api = rest();
    const channel = discord.world.channelId;
    const sent = (await api.post(Routes.channelMessages(channel), { body: { content: 'hello', allowed_mentions: { parse: [] } } })) as APIMessage;
    await api.patch(Routes.channelMessage(channel, sent.id), { body: { content: 'edited' } });
    expect(discord.botMessages(channel)).toMatchObject([{ message: { id: sent.id, content: 'edited' }, edits: 1, allowedMentions: { parse: [] } }]);
    const errors = await Promise.all([
      api.patch(Routes.channelMessage(channel, '1'), { body: { content: 'x' } }).catch((error: unknown) => error),
      api.post(Routes.channelMessages(channel), { body: { content: ' ' } }).catch((error: unknown) => error),
      api.post(Routes.channelMessages(channel), { body: { content: 'x'.repeat(2001) } }).catch((error: unknown) => error),
      api.post(Routes.channelMessages('42'), { body: { content: 'x' } }).catch((error: unknown) => error),
    ]);
    expect(errors.map((error) => error instanceof DiscordAPIError && [error.status, error.code])).toEqual([[404, 10008], [400, 50006], [400, 50035], [404, 10003]]);
    const unauthorized = await new REST({ api: discord.apiUrl, agent: discordAgent() }).setToken('nope').get(Routes.user()).catch((error: unknown) => error);
    expect(unauthorized).toMatchObject({ status: 401 });
  });

  it('answers a scripted 429 with retry_after and rate-limit headers', async () => {
    discord.failNext('createMessage', { status: 429, retryAfter: 0.25 });
    const limited = await rest().post(Routes.channelMessages(discord.world.channelId), { body: { content: 'x' } }).catch((error: unknown) => error);
    expect(limited).toBeInstanceOf(RateLimitError);
    expect((limited as RateLimitError).retryAfter).toBeGreaterThanOrEqual(250);
    const raw = await fetch(`${discord.apiUrl}/v10/channels/${discord.world.channelId}/typing`, { method: 'POST', headers: { authorization: `Bot ${discord.token}` } });
    expect(raw.status).toBe(204);
    expect(raw.headers.get('x-ratelimit-bucket')).toMatch(/^[0-9a-f]{16}$/);
    discord.failNext('triggerTyping', { status: 429, retryAfter: 2, global: true });
    const global = await fetch(`${discord.apiUrl}/v10/channels/${discord.world.channelId}/typing`, { method: 'POST', headers: { authorization: `Bot ${discord.token}` } });
    expect([global.status, global.headers.get('retry-after'), global.headers.get('x-ratelimit-global'), await global.json()]).toEqual([429, '2', 'true', { message: 'You are being rate limited.', retry_after: 2, global: true }]);
  });

  it('takes interaction callbacks once, edits the original response and posts follow-ups', async () => {
    const api = rest();
    const { payload } = discord.slashCommand({ channelId: discord.world.channelId, name: 'status', args: 'now' });
    const { id, token } = payload as { id: string; token: string };
    await api.post(Routes.interactionCallback(id, token), { body: { type: 5 }, auth: false });
    expect(discord.botMessages(discord.world.channelId)[0]!.message.flags).toBe(128);
    const again = await api.post(Routes.interactionCallback(id, token), { body: { type: 5 }, auth: false }).catch((error: unknown) => error);
    expect(again).toMatchObject({ code: 40060 });
    await api.patch(Routes.webhookMessage(discord.applicationId, token), { body: { content: 'done' }, auth: false });
    await api.post(Routes.webhook(discord.applicationId, token), { body: { content: 'psst', flags: 64 }, auth: false });
    expect(discord.botMessages(discord.world.channelId).map((stored) => [stored.message.content, stored.message.flags, stored.ephemeral ?? false])).toEqual([['done', 0, false], ['psst', 64, true]]);
    const unknown = await api.patch(Routes.webhookMessage(discord.applicationId, 'expired'), { body: { content: 'x' }, auth: false }).catch((error: unknown) => error);
    expect(unknown).toMatchObject({ code: 10015 });
  });

  it('serves attachment bytes and drops a connection on request', async () => {
    const bytes = new Uint8Array([1, 2, 3]);
    const { payload } = discord.messageCreate({ channelId: discord.world.dmChannelId, content: '', attachments: [{ filename: 'a b.png', contentType: 'image/png', bytes }] });
    const download = await fetch(payload.attachments[0]!.url);
    expect([download.status, download.headers.get('content-type'), new Uint8Array(await download.arrayBuffer())]).toEqual([200, 'image/png', bytes]);
    discord.failNext('triggerTyping', { dropConnection: true });
    await expect(fetch(`${discord.apiUrl}/v10/channels/1/typing`, { method: 'POST' })).rejects.toThrow();
  });
});
