/**
 * Discord outbound: the message bodies on the wire (no pings, replies, buttons, tables as code),
 * replace falling back to a new message, partial sends, rate limits (short predicted waits queued
 * by discord.js, long ones refused at once, 429s waited out a bounded number of times), error
 * classification, typing and the command menu.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DeliveryError, type ConversationAddress } from '../../src/channels/types.ts';
import { maxQueuedWaitMs } from '../../src/channels/discord/call-discord.ts';
import type { DiscordChannelOptions } from '../../src/channels/discord/index.ts';
import { startDiscordHarness, type DiscordHarness } from './discord-harness.ts';

let harness: DiscordHarness;
let channel: ConversationAddress;

async function start(adapter: Partial<DiscordChannelOptions> = {}): Promise<DiscordHarness> {
  harness = await startDiscordHarness({ adapter });
  channel = { platform: 'discord', conversationId: harness.discord.world.channelId };
  await harness.adapter.start({ onMessage: async () => {}, onAction: async () => {} });
  return harness;
}

async function failure(promise: Promise<unknown>): Promise<DeliveryError> {
  const error = await promise.then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(DeliveryError);
  return error as DeliveryError;
}

/** A retry policy that records the waits it is asked for instead of sleeping. */
function recordingRetry(waits: number[]): Partial<DiscordChannelOptions> {
  return { retry: { attempts: 3, maxWaitMs: 10_000, sleep: async (ms) => void waits.push(ms) } };
}

const long = Array.from({ length: 3 }, (_, index) => `**Part ${index}** ${'word '.repeat(300)}`).join('\n\n');

afterEach(async () => {
  await harness.adapter.stop();
  await harness.close();
});

describe('discord outbound', () => {
  it('sends Markdown as it is, pinging nobody, and replies without failing on a missing message', async () => {
    const { discord, adapter } = await start();
    const text = '## Result\n\n**Done** in `main.ts`, see [docs](https://example.com) <@123> @everyone';
    await adapter.send(channel, { text });
    await adapter.send(channel, { text: 'replying', replyTo: '1' });
    const [plain, reply] = discord.callsOf('createMessage').map((call) => call.body);
    expect(plain).toEqual({ content: text, allowed_mentions: { parse: [] }, components: [] });
    expect(reply).toMatchObject({ message_reference: { message_id: '1', fail_if_not_exists: false }, allowed_mentions: { parse: [], replied_user: true } });
    expect(discord.botMessages(channel.conversationId).map((stored) => stored.message.content)).toEqual([text, 'replying']);
  });

  it('turns tables into code blocks and buttons into rows of at most five', async () => {
    const { discord, adapter } = await start();
    const buttons = [Array.from({ length: 7 }, (_, index) => ({ label: `B${index}`, data: `b${index}` }))];
    await adapter.send(channel, { text: '| a | b |\n|---|--:|\n| **x** | 10 |', buttons });
    const body = discord.callsOf('createMessage')[0]!.body as { content: string; components: { components: { style: number; custom_id: string }[] }[] };
    expect(body.content).toBe('```\na      b\n---  ---\nx     10\n```');
    expect(body.components.map((row) => row.components.map((button) => button.custom_id))).toEqual([['b0', 'b1', 'b2', 'b3', 'b4'], ['b5', 'b6']]);
    expect(body.components[0]!.components[0]).toEqual({ type: 2, style: 2, label: 'B0', custom_id: 'b0' });
  });

  it('edits a message, keeping only the first chunk, and clears buttons not given again', async () => {
    const { discord, adapter } = await start();
    const { ids } = await adapter.send(channel, { text: 'Working…', buttons: [[{ label: 'Stop', data: 'stop' }]] });
    await adapter.edit(channel, ids[0]!, { text: long });
    const stored = discord.message(ids[0]!)!;
    expect(stored.edits).toBe(1);
    expect(stored.message.content.startsWith('**Part 0**')).toBe(true);
    expect(stored.message.content.length).toBeLessThanOrEqual(2000);
    expect(stored.message.components).toEqual([]);
    await expect(adapter.edit(channel, '999', { text: 'gone' })).rejects.toMatchObject({ retryable: false, message: expect.stringContaining('10008') });
  });

  it('sends the first chunk anew when the message to replace is gone', async () => {
    const { discord, adapter, logs } = await start();
    const { ids } = await adapter.send(channel, { text: 'Final answer', replace: '424242' });
    expect(ids).toHaveLength(1);
    expect(ids[0]).not.toBe('424242');
    expect(discord.callsOf('editMessage').map((call) => call.status)).toEqual([404]);
    expect(logs.some((line) => line.includes('424242') && line.includes('sending anew'))).toBe(true);
  });

  it('reports the parts a long message delivered before failing, and a retry sends only the rest', async () => {
    const { discord, adapter } = await start();
    discord.failNext('createMessage', { status: 502, when: (body) => String((body as { content: string }).content).startsWith('**Part 1**') });
    const error = await failure(adapter.send(channel, { text: long }));
    expect(error.retryable).toBe(true);
    expect(error.delivered).toHaveLength(1);
    const rest = await adapter.send(channel, { text: long, skipParts: error.delivered.length });
    const contents = discord.botMessages(channel.conversationId).map((stored) => stored.message.content.slice(0, 10));
    expect(contents).toEqual(['**Part 0**', '**Part 1**', '**Part 2**']);
    expect(rest.ids).toHaveLength(2);
  });

  it('waits out a 429 for its retry_after and sends', async () => {
    const { discord, adapter } = await start();
    discord.failNext('createMessage', { status: 429, retryAfter: 0.05 });
    const { ids } = await adapter.send(channel, { text: 'after the wait' });
    expect(discord.callsOf('createMessage').map((call) => call.status)).toEqual([429, 200]);
    expect(discord.botMessages(channel.conversationId).map((stored) => stored.message.id)).toEqual(ids);
  });

  it('waits a bounded number of times, then gives up with retryAfterMs; a long wait fails at once', async () => {
    const waits: number[] = [];
    const { discord, adapter } = await start(recordingRetry(waits));
    discord.failNext('createMessage', { status: 429, retryAfter: 0.2, times: 5 });
    const error = await failure(adapter.send(channel, { text: 'flooded' }));
    expect(waits).toHaveLength(2);
    // Each attempt reached Discord: the rest of the bucket's wait after a 429 is queued by discord.js, not refused.
    expect(discord.callsOf('createMessage').map((call) => call.status)).toEqual([429, 429, 429]);
    expect(error).toMatchObject({ retryable: true });
    expect(error.retryAfterMs).toBeGreaterThan(0);
    expect(discord.botMessages(channel.conversationId)).toEqual([]);

    waits.length = 0;
    discord.failNext('triggerTyping', { status: 429, retryAfter: 60, global: true });
    const typing = await failure(adapter.typing(channel));
    expect(waits).toEqual([]);
    expect(typing.retryAfterMs).toBeGreaterThanOrEqual(60_000);
  });

  it('queues a burst beyond the channel bucket in discord.js: every message sent once, none refused', async () => {
    const waits: number[] = [];
    const { discord, adapter } = await start(recordingRetry(waits));
    discord.limitRoute('createMessage', { limit: 2, resetAfter: 0.2 });
    await adapter.send(channel, { text: 'first' });
    const texts = Array.from({ length: 6 }, (_, index) => `burst ${index}`);
    const sent = await Promise.all(texts.map((text) => adapter.send(channel, { text })));
    // The fake answers 429 to any call beyond 2 per window: none came, so discord.js held them back.
    expect(discord.callsOf('createMessage').map((call) => call.status)).toEqual(Array.from({ length: 7 }, () => 200));
    expect(discord.botMessages(channel.conversationId).map((stored) => stored.message.content).sort()).toEqual(['first', ...texts].sort());
    expect(new Set(sent.flatMap((one) => one.ids)).size).toBe(6);
    expect(waits).toEqual([]);
  });

  it('queues past the 50 requests a second discord.js keeps for the bot: every message sent once', async () => {
    const waits: number[] = [];
    const { discord, adapter } = await start(recordingRetry(waits));
    const texts = Array.from({ length: 60 }, (_, index) => `message ${index}`);
    await Promise.all(texts.map((text) => adapter.send(channel, { text })));
    expect(discord.callsOf('createMessage').map((call) => call.status)).toEqual(texts.map(() => 200));
    expect(discord.botMessages(channel.conversationId).map((stored) => stored.message.content).sort()).toEqual([...texts].sort());
    expect(waits).toEqual([]);
  });

  it('refuses at once a predicted wait too long to queue: retryable, nothing sent, other channels unaffected', async () => {
    const waits: number[] = [];
    const { discord, adapter } = await start(recordingRetry(waits));
    const dm: ConversationAddress = { platform: 'discord', conversationId: discord.world.dmChannelId };
    const thread: ConversationAddress = { ...channel, threadId: discord.world.threadId };
    await adapter.send(dm, { text: 'learns the bucket' });
    discord.limitRoute('createMessage', { limit: 1, resetAfter: 60 });
    const error = await failure(adapter.send(channel, { text: long }));
    expect(error).toMatchObject({ retryable: true, delivered: [expect.any(String)] });
    expect(error.retryAfterMs).toBeGreaterThan(maxQueuedWaitMs);
    expect(error.message).toMatch(/^Discord createMessage not sent: rate limited, discord\.js would wait \d+ ms/);
    expect(waits).toEqual([]);
    // Only the first part reached Discord, and the error says so: the ledger's retry sends only the rest.
    expect(discord.botMessages(channel.conversationId).map((stored) => stored.message.content.slice(0, 10))).toEqual(['**Part 0**']);
    expect(discord.callsOf('createMessage').map((call) => call.status)).toEqual([200, 200]);
    await adapter.send(thread, { text: 'another channel' });
    expect(discord.botMessages(discord.world.threadId).map((stored) => stored.message.content)).toEqual(['another channel']);
  });

  it('never queues a typing indicator: refused at once while its bucket is spent, even for a short wait', async () => {
    const waits: number[] = [];
    const { discord, adapter } = await start(recordingRetry(waits));
    await adapter.typing({ platform: 'discord', conversationId: discord.world.dmChannelId });
    discord.limitRoute('triggerTyping', { limit: 1, resetAfter: 1 });
    await adapter.typing(channel);
    const refused = await failure(adapter.typing(channel));
    expect(refused).toMatchObject({ retryable: true, message: expect.stringMatching(/^Discord triggerTyping not sent: rate limited/) });
    expect(refused.retryAfterMs).toBeLessThanOrEqual(maxQueuedWaitMs);
    expect(discord.typing).toEqual([discord.world.dmChannelId, channel.conversationId]);
    expect(waits).toEqual([]);
  });

  it('classifies failures: 4xx final, 5xx and network retryable, neither retried in place', async () => {
    const { discord, adapter } = await start();
    discord.failNext('createMessage', { status: 403, code: 50013, message: 'Missing Permissions' });
    const forbidden = await failure(adapter.send(channel, { text: 'hello' }));
    expect(forbidden).toMatchObject({ retryable: false, retryAfterMs: undefined });
    expect(forbidden.message).toBe('Discord createMessage failed: 403 Missing Permissions (code 50013)');

    discord.failNext('createMessage', { status: 500 });
    expect(await failure(adapter.send(channel, { text: 'hello' }))).toMatchObject({ retryable: true });
    discord.failNext('createMessage', { dropConnection: true });
    const network = await failure(adapter.send(channel, { text: 'hello' }));
    expect(network.retryable).toBe(true);
    expect(network.message).toContain('network error');
    expect(discord.callsOf('createMessage')).toHaveLength(3);
    await expect(adapter.send(channel, { text: '   ' })).rejects.toMatchObject({ retryable: false });
  });

  it('registers the command menu with an args option, skipping names Discord refuses', async () => {
    const { discord, adapter, logs } = await start();
    await adapter.setCommands!([
      { name: 'Model', description: 'Choose the model' },
      { name: '/new-chat', description: '' },
      { name: 'has space', description: 'invalid' },
      { name: 'x'.repeat(33), description: 'too long' },
      { name: 'model', description: 'duplicate' },
    ]);
    expect(discord.callsOf('bulkOverwriteCommands')[0]!.path).toBe(`/applications/${discord.applicationId}/commands`);
    expect(discord.commands.map((command) => [command.name, command.description])).toEqual([['model', 'Choose the model'], ['new-chat', 'new-chat']]);
    expect(discord.commands[0]).toMatchObject({ type: 1, options: [{ type: 3, name: 'args', required: false }], contexts: [0, 1] });
    expect(logs.filter((line) => line.includes('left out of the menu'))).toHaveLength(3);
    expect(adapter.capabilities).toMatchObject({ commandMenu: true, maxLength: 2000, editIntervalMs: 1000, edit: true, typing: true, buttons: true, threads: true });
  });
});
