/**
 * Discord lifecycle: login and ready without waiting for guilds, stop and start again, a resume
 * after the gateway dropped, clear start failures (refused token, disallowed intent, no answer),
 * and the bot token kept out of every error and log line.
 */
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createDiscordChannel } from '../../src/channels/discord/index.ts';
import { DeliveryError, type InboundMessage } from '../../src/channels/types.ts';
import { startFakeDiscordServer } from '../fakes/fake-discord-server.ts';
import { startDiscordHarness } from './discord-harness.ts';

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const noHandlers = { onMessage: async () => {}, onAction: async () => {} };

/** A local API URL nothing listens on. */
async function deadApiUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}/api`;
}

async function startError(promise: Promise<unknown>): Promise<DeliveryError> {
  const error = await promise.then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(DeliveryError);
  return error as DeliveryError;
}

describe('discord lifecycle', () => {
  it('logs in, identifies with its intents, and stops and starts again with a new session', async () => {
    const harness = await startDiscordHarness();
    cleanups.push(() => harness.close());
    const messages: InboundMessage[] = [];
    const handlers = { onMessage: async (message: InboundMessage) => void messages.push(message), onAction: async () => {} };
    await harness.adapter.start(handlers);
    const { discord } = harness;
    const identify = discord.gateway.received.find((frame) => frame.op === 2)!.d as { intents: number };
    expect(identify.intents).toBe((1 << 0) | (1 << 9) | (1 << 12) | (1 << 15));
    await expect(harness.adapter.start(handlers)).rejects.toThrow('already started');

    await harness.adapter.stop();
    await discord.waitFor((fake) => fake.gateway.connected().length === 0);
    discord.messageCreate({ channelId: discord.world.channelId, content: 'while stopped' });
    await harness.adapter.start(handlers);
    discord.messageCreate({ channelId: discord.world.channelId, content: 'after the restart' });
    await vi.waitFor(() => expect(messages.map((message) => message.text)).toEqual(['after the restart']));
    expect(discord.gateway.sessions.size).toBe(2);
    await harness.adapter.stop();
  });

  it('resumes after the gateway dropped, receiving what was sent meanwhile', async () => {
    const harness = await startDiscordHarness();
    cleanups.push(() => harness.close(), () => harness.adapter.stop());
    const messages: InboundMessage[] = [];
    await harness.adapter.start({ onMessage: async (message) => void messages.push(message), onAction: async () => {} });
    const { discord } = harness;
    discord.disconnectGateway(4000);
    const missed = discord.messageCreate({ channelId: discord.world.threadId, content: 'sent while disconnected' });
    await vi.waitFor(() => expect(messages.map((message) => message.dedupeKey)).toEqual([`discord:${missed.payload.id}`]));
    expect(discord.gateway.received.some((frame) => frame.op === 6)).toBe(true);
    expect(discord.gateway.sessions.size).toBe(1);
  });

  it('fails clearly on a refused token and on a disallowed Message Content intent', async () => {
    const discord = await startFakeDiscordServer();
    cleanups.push(() => discord.close());
    const logs: string[] = [];
    const refused = createDiscordChannel({ token: 'MTIz.wrong-token-that-is-long-enough.abcdefghijklmnop', apiUrl: discord.apiUrl, log: (line) => logs.push(line) });
    const error = await startError(refused.start(noHandlers));
    expect(error).toMatchObject({ retryable: false, message: expect.stringContaining('refused the bot token') });
    expect(inspect(error)).not.toContain('wrong-token');

    const strict = await startFakeDiscordServer({ messageContentAllowed: false });
    cleanups.push(() => strict.close());
    const intents = await startError(createDiscordChannel({ token: strict.token, apiUrl: strict.apiUrl, log: (line) => logs.push(line) }).start(noHandlers));
    expect(intents).toMatchObject({ retryable: false, message: expect.stringContaining('Message Content intent') });
  });

  it('gives up a start that gets no answer within startTimeoutMs', async () => {
    const held = createHttpServer(() => {});
    await new Promise<void>((resolve) => held.listen(0, '127.0.0.1', resolve));
    cleanups.push(async () => {
      held.closeAllConnections();
      await new Promise<void>((resolve) => held.close(() => resolve()));
    });
    const apiUrl = `http://127.0.0.1:${(held.address() as { port: number }).port}/api`;
    const adapter = createDiscordChannel({ token: 'MTIz.silent-server-token.abcdefghijklmnopqrstuv', apiUrl, startTimeoutMs: 200 });
    const error = await startError(adapter.start(noHandlers));
    expect(error).toMatchObject({ retryable: true, message: 'Discord login failed: not ready within 200 ms' });
    await adapter.stop();
  });

  it('never shows the token in errors or logs: unreachable server, failed sends, handler errors', async () => {
    const harness = await startDiscordHarness();
    cleanups.push(() => harness.close(), () => harness.adapter.stop());
    const { discord } = harness;
    const token = discord.token;
    const logs: string[] = [];
    const unreachable = createDiscordChannel({ token, apiUrl: await deadApiUrl(), log: (line) => logs.push(line) });
    const startFailure = await startError(unreachable.start(noHandlers));
    expect(startFailure.retryable).toBe(true);
    const sendFailure = await startError(unreachable.send({ platform: 'discord', conversationId: '1' }, { text: 'hi' }));

    await harness.adapter.start({ onMessage: async () => Promise.reject(new Error(`boom with ${token}`)), onAction: async () => {} });
    discord.failNext('createMessage', { status: 500 });
    const serverFailure = await startError(harness.adapter.send({ platform: 'discord', conversationId: discord.world.channelId }, { text: 'x' }));
    discord.messageCreate({ channelId: discord.world.channelId, content: 'make the handler fail' });
    await vi.waitFor(() => expect(harness.logs.some((line) => line.includes('boom with'))).toBe(true));
    for (const text of [inspect(startFailure, { depth: 5 }), inspect(sendFailure, { depth: 5 }), inspect(serverFailure, { depth: 5 }), ...logs, ...harness.logs]) {
      expect(text).not.toContain(token);
    }
    expect(harness.logs.find((line) => line.includes('boom with'))).toContain('<token>');
  });
});
