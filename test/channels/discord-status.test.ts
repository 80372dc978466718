/**
 * What the Discord adapter reports through `handlers.status`, against the fake Discord: a gateway
 * socket the fake closes is one `disconnected`, and the session resumed (or identified anew) one
 * `reconnected`; a close for good is a `disconnected` alone; every 429 Discord answers is one
 * `rate_limited`, whether the adapter's REST client met it (rejected to `call-discord.ts`) or
 * discord.js's own (waited out inside discord.js), and a wait discord.js only predicted is none.
 * No reason carries the token.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ChannelStatus, InboundMessage } from '../../src/channels/types.ts';
import { startDiscordHarness, type DiscordHarness, type DiscordHarnessOptions } from './discord-harness.ts';

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function started(options: DiscordHarnessOptions = {}, before: (harness: DiscordHarness) => void = () => {}) {
  const harness = await startDiscordHarness(options);
  cleanups.push(() => harness.close(), () => harness.adapter.stop());
  const statuses: ChannelStatus[] = [];
  const messages: InboundMessage[] = [];
  before(harness);
  await harness.adapter.start({ onMessage: async (message) => void messages.push(message), onAction: async () => {}, status: (status) => statuses.push(status) });
  return { harness, statuses, messages };
}

/** A reconnection's wait: discord.js backs off before it reconnects, and a busy machine is slower still. */
const reconnectWait = { timeout: 15_000 };

function expectNoToken(statuses: ChannelStatus[], token: string): void {
  expect(JSON.stringify(statuses)).not.toContain(token);
}

describe('discord link status', () => {
  it('reports a closed gateway socket as disconnected, then reconnected once the session resumed', async () => {
    const { harness, statuses, messages } = await started();
    const { discord } = harness;
    discord.disconnectGateway(4000);
    const missed = discord.messageCreate({ channelId: discord.world.threadId, content: 'sent while disconnected' });
    await vi.waitFor(() => expect(messages.map((message) => message.dedupeKey)).toEqual([`discord:${missed.payload.id}`]), reconnectWait);
    await vi.waitFor(() => expect(statuses).toHaveLength(2), reconnectWait);
    expect(discord.gateway.received.some((frame) => frame.op === 6)).toBe(true);
    expect(discord.gateway.sessions.size).toBe(1);
    expect(statuses).toEqual([{ kind: 'disconnected', reason: expect.stringContaining('gateway') }, { kind: 'reconnected' }]);
    expectNoToken(statuses, discord.token);
  });

  it('reports reconnected after a new session too, and each drop once', async () => {
    const { harness, statuses } = await started();
    const { discord } = harness;
    discord.disconnectGateway(4000);
    await vi.waitFor(() => expect(statuses).toHaveLength(2), reconnectWait);
    // Discord ends the session on a 1000 close: the client's RESUME is refused and it identifies
    // anew, after discord.js's identify throttle (5 s), hence the long wait.
    discord.disconnectGateway(1000);
    await vi.waitFor(() => expect(statuses).toHaveLength(4), { timeout: 15_000 });
    await discord.waitFor((fake) => fake.gateway.sessions.size === 2 && fake.gateway.connected().length === 1);
    expect(statuses.map((status) => status.kind)).toEqual(['disconnected', 'reconnected', 'disconnected', 'reconnected']);
    await harness.adapter.stop();
    await discord.waitFor((fake) => fake.gateway.connected().length === 0);
    expect(statuses).toHaveLength(4);
  });

  it('reports a gateway closed for good as disconnected, with its close code', async () => {
    const { harness, statuses } = await started();
    harness.discord.disconnectGateway(4004);
    await vi.waitFor(() => expect(statuses).toEqual([{ kind: 'disconnected', reason: 'gateway closed for good (code 4004)' }]), reconnectWait);
  });

  it("reports each 429 of the adapter's REST calls once, waited out or not, and no wait discord.js only predicted", async () => {
    const waits: number[] = [];
    const { harness, statuses } = await started({ adapter: { retry: { attempts: 3, maxWaitMs: 10_000, sleep: async (ms) => void waits.push(ms) } } });
    const { discord, adapter } = harness;
    const channel = { platform: 'discord', conversationId: discord.world.channelId };
    const dm = { platform: 'discord', conversationId: discord.world.dmChannelId };

    // discord.js holds these back by its own accounting of the bucket: Discord never answers 429.
    discord.limitRoute('createMessage', { limit: 2, resetAfter: 0.2 });
    await adapter.send(dm, { text: 'learns the bucket' });
    await Promise.all(['one', 'two', 'three', 'four'].map((text) => adapter.send(dm, { text })));
    expect(discord.callsOf('createMessage').map((call) => call.status)).toEqual([200, 200, 200, 200, 200]);
    expect(statuses).toEqual([]);

    discord.failNext('createMessage', { status: 429, retryAfter: 0.05 });
    await adapter.send(channel, { text: 'after the wait' });
    expect(discord.callsOf('createMessage').slice(5).map((call) => call.status)).toEqual([429, 200]);
    expect(waits).toHaveLength(1);
    expect(waits[0]).toBeGreaterThanOrEqual(50);
    expect(statuses).toEqual([{ kind: 'rate_limited', retryAfterMs: waits[0] }]);

    // Too long to wait in place: failed at once, and still reported.
    discord.failNext('triggerTyping', { status: 429, retryAfter: 60, global: true });
    await expect(adapter.typing(channel)).rejects.toMatchObject({ retryable: true });
    expect(waits).toHaveLength(1);
    expect(statuses).toHaveLength(2);
    expect(statuses[1]).toEqual({ kind: 'rate_limited', retryAfterMs: expect.any(Number) });
    expect((statuses[1] as { retryAfterMs: number }).retryAfterMs).toBeGreaterThanOrEqual(60_000);
  });

  it("reports a 429 discord.js's own REST client waits out (gateway discovery at login)", async () => {
    const { harness, statuses } = await started({}, ({ discord }) => discord.failNext('getGatewayBot', { status: 429, retryAfter: 0.05 }));
    expect(harness.discord.callsOf('getGatewayBot').map((call) => call.status)).toEqual([429, 200]);
    expect(statuses).toEqual([{ kind: 'rate_limited', retryAfterMs: 50 }]);
  });
});
