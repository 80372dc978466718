/**
 * Discord on Workers, inside workerd: the reply adapter against the fake Discord REST API (an
 * interaction's deferred reply completed through its webhook, channel messages with the bot
 * token), then the interactions endpoint (Ed25519 signatures by the fake application's key,
 * PING, slash commands on record in their conversation's object, components acknowledged). The
 * adapter's tests come first: they script the fake's next answers, which the replies of the
 * endpoint's turns must not take. The endpoint's commands are `/help`, which a conversation
 * answers itself, so no turn calls the shared fake model.
 */
import { env, runInDurableObject, SELF } from 'cloudflare:test';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DeliveryError, type ConversationAddress } from '../../src/channels/types.ts';
import { discordInteractions } from '../../src/worker/discord-interactions.ts';
import { replyChannelFor } from '../../src/worker/reply-channels.ts';
import type { WorkerEnv } from '../../src/worker/worker-env.ts';
import { callFake, readFake } from './support/fakes.ts';
import { onRecord } from './support/objects.ts';

const workerEnv = env as WorkerEnv;

interface World {
  guildId: string;
  channelId: string;
  threadId: string;
  dmChannelId: string;
  person: { id: string };
}

interface StoredMessage {
  message: { id: string; content: string; flags?: number; nonce?: string };
  edits: number;
  interactionToken?: string;
}

interface Interaction {
  id: string;
  token: string;
  application_id: string;
  channel_id: string;
  data: Record<string, unknown>;
  [field: string]: unknown;
}

let world: World;

afterEach(() => {
  vi.restoreAllMocks();
});

/** A snowflake of now (Discord's ids carry the millisecond they were made), or `ageMs` before. */
function snowflake(ageMs = 0): string {
  return String((BigInt(Date.now() - ageMs) - 1_420_070_400_000n) << 22n);
}

beforeAll(async () => {
  world = await readFake<World>('discord', 'world');
});

/** A slash command the fake Discord made (and registered, so its token works), as its payload. */
async function slashCommand(options: { channelId: string; name: string; args?: string }): Promise<Interaction> {
  return (await callFake<{ payload: Interaction }>('discord', 'slashCommand', options)).payload;
}

const botMessage = async (channelId: string, id: string) => (await callFake<StoredMessage[]>('discord', 'botMessages', channelId)).find((stored) => stored.message.id === id);

/** The error `promise` rejects with. */
async function failure(promise: Promise<unknown>): Promise<DeliveryError> {
  const error = await promise.then(() => undefined, (reason: unknown) => reason);
  expect(error).toBeInstanceOf(DeliveryError);
  return error as DeliveryError;
}

describe('the Discord reply adapter on Workers', () => {
  const address = (): ConversationAddress => ({ platform: 'discord', conversationId: world.channelId });

  it('completes a slash command\'s deferred reply: @original first, follow-ups after, edits through the webhook', async () => {
    const interaction = await slashCommand({ channelId: world.channelId, name: 'ask', args: 'hi' });
    await callFake('discord', 'endpointAnswered', interaction.id, { type: 5 });
    const discord = replyChannelFor('discord', workerEnv, { applicationId: interaction.application_id, token: interaction.token })!;
    const long = ['**first** part', 'x'.repeat(1_990)].join('\n\n');
    const { ids } = await discord.send(address(), { text: long });
    expect(ids).toHaveLength(2);
    const original = await botMessage(world.channelId, ids[0]!);
    expect(original).toMatchObject({ interactionToken: interaction.token, message: { content: '**first** part' } });
    expect(original!.message.flags! & 128).toBe(0);
    expect(await botMessage(world.channelId, ids[1]!)).toMatchObject({ interactionToken: interaction.token, message: { content: 'x'.repeat(1_990) } });

    await discord.edit(address(), ids[1]!, { text: 'shorter' });
    expect(await botMessage(world.channelId, ids[1]!)).toMatchObject({ edits: 1, message: { content: 'shorter' } });
    const calls = await callFake<{ route: string }[]>('discord', 'callsOf', 'editWebhookMessage');
    expect(calls.length).toBeGreaterThanOrEqual(2);
  });

  it('writes the deferred reply also when it is sent before Discord has taken the deferral', async () => {
    const interaction = await slashCommand({ channelId: world.channelId, name: 'ask' });
    const discord = replyChannelFor('discord', workerEnv, { applicationId: interaction.application_id, token: interaction.token })!;
    const sending = discord.send(address(), { text: 'quick answer' });
    await callFake('discord', 'endpointAnswered', interaction.id, { type: 5 });
    const { ids } = await sending;
    expect(await botMessage(world.channelId, ids[0]!)).toMatchObject({ interactionToken: interaction.token, message: { content: 'quick answer' } });
  });

  it('is made anew for each interaction; the bot-token adapter is kept', () => {
    const first = replyChannelFor('discord', workerEnv, { applicationId: '1', token: 'a' });
    const second = replyChannelFor('discord', workerEnv, { applicationId: '1', token: 'b' });
    expect(first).not.toBe(second);
    expect(replyChannelFor('discord', workerEnv)).toBe(replyChannelFor('discord', workerEnv));
    expect(replyChannelFor('discord', workerEnv)!.capabilities).toMatchObject({ typing: false, buttons: false, edit: true, maxLength: 2000 });
  });

  it('without an interaction, sends to the channel with the bot token, once per key, and edits there', async () => {
    const discord = replyChannelFor('discord', workerEnv)!;
    const first = await discord.send(address(), { text: 'from the bot', idempotencyKey: 'reply-1' });
    const again = await discord.send(address(), { text: 'from the bot', idempotencyKey: 'reply-1' });
    expect(again.ids).toEqual(first.ids);
    await discord.edit(address(), first.ids[0]!, { text: 'edited by the bot' });
    expect(await botMessage(world.channelId, first.ids[0]!)).toMatchObject({ edits: 1, message: { content: 'edited by the bot' } });
  });

  it('sends to the channel once the interaction\'s token is refused (expired)', async () => {
    const discord = replyChannelFor('discord', workerEnv, { applicationId: workerEnv.DISCORD_APPLICATION_ID!, token: 'an-expired-interaction-token' })!;
    const { ids } = await discord.send(address(), { text: 'late answer' });
    expect(await botMessage(world.channelId, ids[0]!)).toMatchObject({ message: { content: 'late answer' } });
    expect((await botMessage(world.channelId, ids[0]!))!.interactionToken).toBeUndefined();
  });

  it('maps Discord failures to delivery errors: rate limits with their wait, server errors retryable, no token in the text', async () => {
    const interaction = await slashCommand({ channelId: world.channelId, name: 'ask' });
    await callFake('discord', 'endpointAnswered', interaction.id, { type: 5 });
    const discord = replyChannelFor('discord', workerEnv, { applicationId: interaction.application_id, token: interaction.token })!;
    await callFake('discord', 'failNext', 'editWebhookMessage', { status: 429, retryAfter: 1.5 });
    const limited = await failure(discord.send(address(), { text: 'hi' }));
    expect(limited).toMatchObject({ retryable: true, retryAfterMs: 1_500 });
    expect(limited.message).not.toContain(interaction.token);

    await callFake('discord', 'failNext', 'editWebhookMessage', { status: 502 });
    expect(await failure(discord.send(address(), { text: 'hi' }))).toMatchObject({ retryable: true });

    const bot = replyChannelFor('discord', workerEnv)!;
    const unknown = await failure(bot.send({ platform: 'discord', conversationId: '1' }, { text: 'nowhere' }));
    expect(unknown).toMatchObject({ retryable: false });
    expect(unknown.message).toContain('code 10003');
    expect(unknown.message).not.toContain(workerEnv.DISCORD_BOT_TOKEN!);
  });
});

describe('the Discord interactions endpoint on Workers', () => {
  /** POSTs `payload` to the Worker as Discord would, signed by the fake application's key (or forged). */
  async function post(payload: unknown, options: { forged?: boolean; headers?: Record<string, string | undefined>; body?: string } = {}): Promise<Response> {
    const signed = await callFake<{ body: string; headers: Record<string, string> }>('discord', 'signedInteraction', payload, { forged: options.forged ?? false });
    const headers = Object.fromEntries(Object.entries({ ...signed.headers, ...options.headers }).filter((entry): entry is [string, string] => entry[1] !== undefined));
    return SELF.fetch('http://example.com/webhooks/discord', { method: 'POST', headers, body: options.body ?? signed.body });
  }

  it('refuses a missing, forged or malformed signature, and a tampered body (401)', async () => {
    const ping = { id: snowflake(), type: 1, application_id: workerEnv.DISCORD_APPLICATION_ID, token: 't', version: 1 };
    expect((await post(ping, { headers: { 'x-signature-ed25519': undefined } })).status).toBe(401);
    expect((await post(ping, { headers: { 'x-signature-timestamp': undefined } })).status).toBe(401);
    expect((await post(ping, { forged: true })).status).toBe(401);
    expect((await post(ping, { headers: { 'x-signature-ed25519': 'zz' } })).status).toBe(401);
    expect((await post(ping, { body: JSON.stringify({ ...ping, type: 2 }) })).status).toBe(401);
  });

  it('answers a signed PING with PONG', async () => {
    const response = await post({ id: snowflake(), type: 1, application_id: workerEnv.DISCORD_APPLICATION_ID, token: 't', version: 1 });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ type: 1 });
  });

  it('takes a slash command on record in its conversation, then defers (type 5)', async () => {
    const interaction = await slashCommand({ channelId: world.channelId, name: 'help' });
    const response = await post(interaction);
    expect(await response.json()).toEqual({ type: 5 });
    await callFake('discord', 'endpointAnswered', interaction.id, { type: 5 });
    expect(await onRecord(`discord:channel:${world.channelId}`, `discord:interaction:${interaction.id}`)).toBe(true);
  });

  it('keeps a command in a thread or a DM in that conversation', async () => {
    const inThread = await slashCommand({ channelId: world.threadId, name: 'help' });
    expect(await (await post(inThread)).json()).toEqual({ type: 5 });
    await callFake('discord', 'endpointAnswered', inThread.id, { type: 5 });
    expect(await onRecord(`discord:channel:${world.channelId}:thread:${world.threadId}`, `discord:interaction:${inThread.id}`)).toBe(true);
    const inDm = await slashCommand({ channelId: world.dmChannelId, name: 'help' });
    expect(await (await post(inDm)).json()).toEqual({ type: 5 });
    await callFake('discord', 'endpointAnswered', inDm.id, { type: 5 });
    expect(await onRecord(`discord:dm:${world.person.id}`, `discord:interaction:${inDm.id}`)).toBe(true);
  });

  it('acknowledges a component with a deferred update (type 6) and takes nothing', async () => {
    const { channelId, user } = await callFake<{ channelId: string; user: { id: string } }>('discord', 'addDmChannel', 'Bea Presser');
    const { payload: message } = await callFake<{ payload: { id: string } }>('discord', 'messageCreate', { channelId, content: 'a message with a button', author: user });
    const { payload: press } = await callFake<{ payload: Interaction }>('discord', 'buttonPress', { channelId, messageId: message.id, customId: 'operator:0:0', user });
    expect(await (await post(press)).json()).toEqual({ type: 6 });
    const stub = workerEnv.CONVERSATIONS.get(workerEnv.CONVERSATIONS.idFromName(`discord:dm:${user.id}`));
    expect(await runInDurableObject(stub, async (_object, state) => (await state.storage.list()).size)).toBe(0);
  });

  it('tells the person at once when the conversation cannot take the command (Discord never sends it again)', async () => {
    const interaction = await slashCommand({ channelId: world.channelId, name: 'help' });
    const signed = await callFake<{ body: string; headers: Record<string, string> }>('discord', 'signedInteraction', interaction);
    const refusing = {
      idFromName: (name: string) => workerEnv.CONVERSATIONS.idFromName(name),
      get: () => ({ accept: () => Promise.reject(new Error('storage unavailable')) }),
    } as unknown as WorkerEnv['CONVERSATIONS'];
    const response = await discordInteractions(new Request('http://example.com/webhooks/discord', { method: 'POST', headers: signed.headers, body: signed.body }), { ...workerEnv, CONVERSATIONS: refusing });
    expect(await response.json()).toMatchObject({ type: 4, data: { flags: 64, content: expect.stringContaining('try it again') } });
  });

  it('refuses an interaction made more than 5 minutes ago (a replayed request), and one dated ahead as far', async () => {
    const logged: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(' ')));
    // A real command, its request captured, sent again six minutes later: signed, and refused.
    const interaction = await slashCommand({ channelId: world.channelId, name: 'help' });
    const replayed = { ...interaction, id: snowflake(6 * 60_000) };
    const stale = await post(replayed);
    expect(stale.status).toBe(401);
    expect(await stale.text()).toContain('more than 5 minutes old');
    expect(await onRecord(`discord:channel:${world.channelId}`, `discord:interaction:${replayed.id}`)).toBe(false);
    expect(logged.some((line) => line.includes(`interaction ${replayed.id} refused`) && line.includes('ago'))).toBe(true);
    expect(logged.join('\n')).not.toContain(interaction.token);
    expect((await post({ id: snowflake(-6 * 60_000), type: 1, application_id: workerEnv.DISCORD_APPLICATION_ID, token: 't', version: 1 })).status).toBe(401);
    expect(logged.some((line) => line.includes('ahead of this clock'))).toBe(true);
    // Within the 5 minutes it is taken, as any other.
    expect(await (await post({ id: snowflake(4 * 60_000), type: 1, application_id: workerEnv.DISCORD_APPLICATION_ID, token: 't', version: 1 })).json()).toEqual({ type: 1 });
  });

  it('refuses an interaction without a snowflake id (400)', async () => {
    for (const id of [undefined, 'not-a-number', '1'.repeat(21), 42]) {
      expect((await post({ id, type: 1, application_id: workerEnv.DISCORD_APPLICATION_ID, token: 't', version: 1 })).status).toBe(400);
    }
  });

  it('answers 503 without a public key configured, and 400 to an interaction type it does not take', async () => {
    const unconfigured = await discordInteractions(new Request('http://example.com/webhooks/discord', { method: 'POST', body: '{}' }), { ...workerEnv, DISCORD_PUBLIC_KEY: undefined });
    expect(unconfigured.status).toBe(503);
    expect(await unconfigured.text()).toContain('DISCORD_PUBLIC_KEY');
    expect((await post({ id: snowflake(), type: 5, application_id: workerEnv.DISCORD_APPLICATION_ID, token: 't', version: 1, data: {} })).status).toBe(400);
  });
});
