/**
 * What the Telegram adapter reports through `handlers.status`, against the fake Bot API: a long
 * poll failing on the network or with a 5xx is one `disconnected` (however often it fails), the
 * next poll that answers one `reconnected`; every 429, of a poll or a send, is a `rate_limited`
 * with Telegram's `retry_after`; no reason carries the token.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ChannelStatus, InboundMessage } from '../../src/channels/types.ts';
import { startTelegramHarness, type TelegramHarness, type TelegramHarnessOptions } from './telegram-harness.ts';

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function started(options: TelegramHarnessOptions, before: (harness: TelegramHarness) => void = () => {}) {
  const harness = await startTelegramHarness(options);
  cleanups.push(() => harness.close(), () => harness.adapter.stop());
  const statuses: ChannelStatus[] = [];
  const messages: InboundMessage[] = [];
  before(harness);
  await harness.adapter.start({ onMessage: async (message) => void messages.push(message), onAction: async () => {}, status: (status) => statuses.push(status) });
  return { harness, statuses, messages };
}

function expectNoToken(statuses: ChannelStatus[], token: string): void {
  const shown = JSON.stringify(statuses);
  expect(shown).not.toContain(token);
  expect(shown).not.toContain(token.split(':')[1]);
}

describe('telegram link status', () => {
  it('reports one disconnected while getUpdates keeps failing, and one reconnected when a poll answers', async () => {
    const { harness, statuses, messages } = await started({ mode: 'polling', adapter: { pollRetryDelayMs: 1 } }, ({ telegram }) => {
      // A proxy's error page that echoes the request URL, token included.
      telegram.failNext('getUpdates', { status: 502, description: `Bad Gateway: /bot${telegram.token}/getUpdates`, times: 2 });
      telegram.failNext('getUpdates', { dropConnection: true, times: 2 });
    });
    const { telegram } = harness;
    // The fifth poll is the first that Telegram holds open: the four failures are behind it.
    await telegram.waitFor((fake) => fake.callsOf('getUpdates').length >= 5);
    expect(telegram.callsOf('getUpdates').slice(0, 4).map((call) => call.status)).toEqual([502, 502, 0, 0]);
    expect(statuses).toEqual([{ kind: 'disconnected', reason: expect.stringContaining('502 Bad Gateway') }]);

    telegram.pushUpdate(telegram.textMessage({ chatId: 42, text: 'back' }));
    await vi.waitFor(() => expect(messages.map((message) => message.text)).toEqual(['back']));
    await telegram.waitFor((fake) => fake.callsOf('getUpdates').length >= 6);
    expect(statuses).toEqual([{ kind: 'disconnected', reason: expect.stringContaining('getUpdates') }, { kind: 'reconnected' }]);
    expectNoToken(statuses, telegram.token);
  });

  it('reports a new drop after a recovery, and nothing when stopped', async () => {
    const { harness, statuses } = await started({ mode: 'polling', adapter: { pollRetryDelayMs: 1 } }, ({ telegram }) => {
      telegram.failNext('getUpdates', { status: 500 });
    });
    const { telegram } = harness;
    await telegram.waitFor((fake) => fake.callsOf('getUpdates').length >= 2);
    telegram.failNext('getUpdates', { dropConnection: true });
    telegram.pushUpdate(telegram.textMessage({ chatId: 42, text: 'wake the poll' }));
    await telegram.waitFor((fake) => fake.callsOf('getUpdates').length >= 4);
    telegram.pushUpdate(telegram.textMessage({ chatId: 42, text: 'wake it again' }));
    await vi.waitFor(() => expect(statuses).toHaveLength(4));
    await harness.adapter.stop();
    await telegram.close();
    expect(statuses.map((status) => status.kind)).toEqual(['disconnected', 'reconnected', 'disconnected', 'reconnected']);
    expect(statuses[2]).toEqual({ kind: 'disconnected', reason: expect.stringContaining('network error') });
    expectNoToken(statuses, telegram.token);
  });

  it('reports a getUpdates 429 as a rate limit, not as a lost link', async () => {
    const { harness, statuses, messages } = await started({ mode: 'polling' }, ({ telegram }) => {
      telegram.failNext('getUpdates', { status: 429, retryAfter: 1 });
    });
    const { telegram } = harness;
    await telegram.waitFor((fake) => fake.callsOf('getUpdates').length >= 2);
    telegram.pushUpdate(telegram.textMessage({ chatId: 42, text: 'after the wait' }));
    await vi.waitFor(() => expect(messages).toHaveLength(1));
    expect(statuses).toEqual([{ kind: 'rate_limited', retryAfterMs: 1_000 }]);
  });

  it('reports every 429 of a send with its retry_after, the one given up on included', async () => {
    const waits: number[] = [];
    const { harness, statuses } = await started({ mode: 'webhook', adapter: { retry: { attempts: 3, sleep: async (ms) => void waits.push(ms) } } });
    const { telegram, adapter } = harness;
    telegram.failNext('sendMessage', { status: 429, retryAfter: 2 });
    await adapter.send({ platform: 'telegram', conversationId: '42' }, { text: 'after one wait' });
    telegram.failNext('sendMessage', { status: 429, retryAfter: 3, times: 3 });
    await expect(adapter.send({ platform: 'telegram', conversationId: '42' }, { text: 'given up' })).rejects.toMatchObject({ retryAfterMs: 3_000 });
    expect(waits).toEqual([2_000, 3_000, 3_000]);
    expect(statuses).toEqual([
      { kind: 'rate_limited', retryAfterMs: 2_000 },
      { kind: 'rate_limited', retryAfterMs: 3_000 },
      { kind: 'rate_limited', retryAfterMs: 3_000 },
      { kind: 'rate_limited', retryAfterMs: 3_000 },
    ]);
  });

  it('reports the link gone when Telegram refuses the token mid-run', async () => {
    const { harness, statuses } = await started({ mode: 'polling' }, ({ telegram }) => {
      telegram.failNext('getUpdates', { status: 401 });
    });
    await vi.waitFor(() => expect(harness.logs.some((line) => line.includes('long polling stopped'))).toBe(true));
    expect(statuses).toEqual([{ kind: 'disconnected', reason: expect.stringMatching(/^long polling stopped: .*401/) }]);
    expectNoToken(statuses, harness.telegram.token);
  });
});
