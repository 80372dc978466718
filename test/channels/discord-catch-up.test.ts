/**
 * Catching up on Discord messages sent while no session was connected: the adapter (discord.js
 * over the fake Discord's REST and gateway) reads the history of the conversations the gateway
 * names and hands over what was sent within the window, oldest first, before what arrives live.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ChannelAdapter, ChannelHandlers, ConversationRef, InboundMessage } from '../../src/channels/types.ts';
import { snowflakeAt } from '../../src/channels/discord/catch-up.ts';
import { startDiscordHarness, type DiscordHarness } from './discord-harness.ts';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `condition` (what the adapter hands over changes nothing the fake could announce). */
async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const ends = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > ends) throw new Error(`condition not met within ${timeoutMs} ms`);
    await pause(20);
  }
}

describe('Discord catch-up', () => {
  let harness: DiscordHarness;
  let adapter: ChannelAdapter | undefined;

  afterEach(async () => {
    await adapter?.stop();
    await harness?.discord.close();
  });

  /** The DM and the guild channel of the fake's world, as the gateway would name them. */
  const refs = (h: DiscordHarness): { dm: ConversationRef; channel: ConversationRef } => ({
    dm: { sessionKey: `discord:dm:${h.discord.world.person.id}`, address: { platform: 'discord', conversationId: h.discord.world.dmChannelId }, scope: 'dm' },
    channel: { sessionKey: `discord:channel:${h.discord.world.channelId}`, address: { platform: 'discord', conversationId: h.discord.world.channelId }, scope: 'group' },
  });

  /** Starts an adapter whose gateway knows `known`, recording what it is handed and what it was asked. */
  async function start(known: ConversationRef[], options: { windowMs?: number } = {}) {
    const taken: InboundMessage[] = [];
    const asked: { since: number; limit: number }[] = [];
    const handlers: ChannelHandlers = {
      onMessage: async (message) => {
        taken.push(message);
      },
      onAction: async () => undefined,
      recentConversations: async (since, limit) => {
        asked.push({ since, limit });
        return known;
      },
    };
    adapter = harness.createAdapter(options.windowMs === undefined ? {} : { catchUp: { windowMs: options.windowMs } });
    await adapter.start(handlers);
    return { taken, asked, texts: () => taken.map((message) => message.text) };
  }

  it('hands over what was sent while down, oldest first, before a message that comes live, once', async () => {
    harness = await startDiscordHarness();
    const { discord } = harness;
    const { dm, channel } = refs(harness);
    const mention = `<@${discord.bot.id}>`;
    // Sent while no gateway was connected: Discord keeps them in the history only.
    discord.messageCreate({ channelId: dm.address.conversationId, content: 'first while down' });
    discord.messageCreate({ channelId: channel.address.conversationId, content: `${mention} in the channel while down` });
    discord.messageCreate({ channelId: dm.address.conversationId, content: 'second while down' });
    // A conversation the gateway does not name is not read.
    discord.messageCreate({ channelId: discord.world.threadId, content: `${mention} in a thread the gateway never talked in` });
    const { taken, asked, texts } = await start([dm, channel]);
    // Sent the moment the adapter is up, while the history is still being read: it waits its turn.
    discord.messageCreate({ channelId: dm.address.conversationId, content: 'live after the start' });
    await until(() => new Set(texts()).size >= 4, 10_000);
    await pause(200);
    // The live message may come twice (live, and in the history read after it was sent): the
    // gateway's dedupe takes it once. What matters is the order of first appearance in each
    // conversation (conversations are handed over side by side).
    const firstSeen = (sessionKey: string) => [...new Set(taken.filter((message) => message.sessionKey === sessionKey).map((message) => message.text))];
    expect(firstSeen(dm.sessionKey)).toEqual(['first while down', 'second while down', 'live after the start']);
    expect(firstSeen(channel.sessionKey)).toEqual(['in the channel while down']);
    expect(taken.filter((message) => message.sessionKey === dm.sessionKey).slice(0, 2).map((message) => message.text)).toEqual(['first while down', 'second while down']);
    // Each with its conversation as a live message would have it, and its own dedupe key.
    expect(taken.find((message) => message.text === 'first while down')).toMatchObject({ sessionKey: dm.sessionKey, scope: 'dm', mentioned: true, sender: { id: discord.world.person.id } });
    expect(taken.find((message) => message.text === 'in the channel while down')).toMatchObject({ sessionKey: channel.sessionKey, scope: 'group', mentioned: true });
    expect(new Set(taken.map((message) => message.dedupeKey)).size).toBe(4);
    expect(new Set(taken.map((message) => `${message.dedupeKey} ${message.text}`)).size).toBe(4);
    expect(asked).toHaveLength(1);
    expect(asked[0]!.limit).toBe(200);
    // The bot's own messages in the history are never handed over.
    const reads = discord.calls.filter((call) => call.route === 'getChannelMessages');
    expect(reads.map((call) => call.path).sort()).toEqual([`/channels/${channel.address.conversationId}/messages`, `/channels/${dm.address.conversationId}/messages`].sort());
  });

  it("does not hold up a conversation it is not catching up on while another one's history is read", async () => {
    harness = await startDiscordHarness();
    const { discord } = harness;
    const { dm } = refs(harness);
    discord.messageCreate({ channelId: dm.address.conversationId, content: 'missed in the DM' });
    // Reading the DM's history waits out a rate limit of 1.5 s (Discord asked for it).
    discord.failNext('getChannelMessages', { status: 429, retryAfter: 1.5, when: (_body, path) => path.includes(dm.address.conversationId) });
    const { taken, texts } = await start([dm]);
    discord.messageCreate({ channelId: discord.world.threadId, content: `<@${discord.bot.id}> live in a thread` });
    await until(() => taken.length >= 2, 10_000);
    // The thread's live message went first; the DM's missed one followed once its history was read.
    expect(texts()).toEqual(['live in a thread', 'missed in the DM']);
  });

  it('leaves messages older than the window alone', async () => {
    harness = await startDiscordHarness();
    const { dm } = refs(harness);
    // Sent two minutes and one second ago, with a window of one minute: however long the start takes
    // on a busy machine, the window's start falls between them.
    harness.discord.messageCreate({ channelId: dm.address.conversationId, content: 'too old', sentAt: Date.now() - 120_000 });
    harness.discord.messageCreate({ channelId: dm.address.conversationId, content: 'recent enough', sentAt: Date.now() - 1_000 });
    const { taken, texts } = await start([dm], { windowMs: 60_000 });
    await until(() => taken.length >= 1, 10_000);
    await pause(300);
    expect(texts()).toEqual(['recent enough']);
  });

  it('leaves alone what was sent before the first message the gateway took there last time (it would come out of order)', async () => {
    harness = await startDiscordHarness();
    const { dm } = refs(harness);
    harness.discord.messageCreate({ channelId: dm.address.conversationId, content: 'before the gateway knew the conversation' });
    await pause(50);
    const taken = harness.discord.messageCreate({ channelId: dm.address.conversationId, content: 'the first one it took' });
    const since = Date.parse(taken.payload.timestamp);
    harness.discord.messageCreate({ channelId: dm.address.conversationId, content: 'sent while it was down' });
    const { taken: handed, texts } = await start([{ ...dm, since }]);
    await until(() => handed.length >= 2, 10_000);
    await pause(300);
    expect(texts()).toEqual(['the first one it took', 'sent while it was down']);
  });

  it('reads a long history page by page, in order', async () => {
    harness = await startDiscordHarness();
    const { dm } = refs(harness);
    for (let index = 1; index <= 230; index++) harness.discord.messageCreate({ channelId: dm.address.conversationId, content: `message ${index}` });
    const { taken, texts } = await start([dm]);
    await until(() => taken.length >= 230, 15_000);
    expect(texts()).toEqual(Array.from({ length: 230 }, (_, index) => `message ${index + 1}`));
    expect(harness.discord.calls.filter((call) => call.route === 'getChannelMessages')).toHaveLength(3);
  });

  it('skips a conversation it cannot read, says so, and still catches up the others', async () => {
    harness = await startDiscordHarness();
    const { dm } = refs(harness);
    const gone: ConversationRef = { sessionKey: 'discord:channel:1234', address: { platform: 'discord', conversationId: '1234' }, scope: 'group' };
    harness.discord.messageCreate({ channelId: dm.address.conversationId, content: 'still answered' });
    const { taken, texts } = await start([gone, dm]);
    await until(() => taken.length >= 1, 10_000);
    expect(texts()).toEqual(['still answered']);
    expect(harness.logs.some((line) => line.includes('missed messages of discord:channel:1234 not read') && line.includes('Unknown Channel'))).toBe(true);
    expect(harness.logs.join('\n')).not.toContain(harness.discord.token);
  });

  it('reads nothing when the window is 0', async () => {
    harness = await startDiscordHarness();
    const { dm } = refs(harness);
    harness.discord.messageCreate({ channelId: dm.address.conversationId, content: 'not caught up' });
    const { taken, asked } = await start([dm], { windowMs: 0 });
    await pause(500);
    expect(taken).toEqual([]);
    expect(asked).toEqual([]);
    expect(harness.discord.calls.some((call) => call.route === 'getChannelMessages')).toBe(false);
  });

  it('names moments as snowflakes Discord compares with message ids', () => {
    expect(snowflakeAt(1_420_070_400_000)).toBe('0');
    expect(snowflakeAt(0)).toBe('0');
    // 2026-01-01T00:00:00Z, as discord.js's SnowflakeUtil would make it.
    expect(BigInt(snowflakeAt(Date.UTC(2026, 0, 1))) >> 22n).toBe(BigInt(Date.UTC(2026, 0, 1) - 1_420_070_400_000));
  });
});
