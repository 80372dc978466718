/**
 * The adapters' boundaries against exceptions from outside code, through the real SDKs (grammy,
 * bolt) against the fake platforms: an update or event whose handling throws is reported to
 * `handlers.status` as `outside_error` with its type (the error described without the payload's
 * text), answered so the platform does not deliver it again, and the next one is handled.
 *
 * Mutation checks (the Telegram boundaries are layered: the middleware's catch around the
 * adapter's reading, then `guarded-update.ts` / the webhook's catch): with the middleware's catch
 * removed and the webhook's report put back to the old 400 answer, the webhook case fails (400,
 * nothing reported); with the middleware's catch and the one in `guarded-update.ts` removed, the
 * polling case never gets past the update; with the report in `slack/webhook.ts` removed, the
 * Slack case has no report; with `guardPackets` removed from `discord-channel.ts`, discord.js's
 * throw escapes the Discord case as an unhandled rejection (vitest fails the run).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ChannelStatus, InboundMessage } from '../../src/channels/types.ts';
import { startDiscordHarness } from './discord-harness.ts';
import { startSlackHarness } from './slack-harness.ts';
import { startTelegramHarness } from './telegram-harness.ts';

const payloadText = 'teal-marmot payload words';
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Handlers that keep what they are given. */
function recording(): { messages: InboundMessage[]; statuses: ChannelStatus[]; handlers: { onMessage(message: InboundMessage): Promise<void>; onAction(): Promise<void>; status(status: ChannelStatus): void } } {
  const messages: InboundMessage[] = [];
  const statuses: ChannelStatus[] = [];
  return { messages, statuses, handlers: { onMessage: async (message) => void messages.push(message), onAction: async () => {}, status: (status) => void statuses.push(status) } };
}

const outsideErrors = (statuses: ChannelStatus[]) => statuses.filter((status) => status.kind === 'outside_error');

describe('telegram', () => {
  for (const mode of ['webhook', 'polling'] as const) {
    it(`(${mode}) drops an update whose handling throws, reports it, and takes the next one`, async () => {
      const harness = await startTelegramHarness({ mode });
      cleanups.push(() => harness.close(), () => harness.adapter.stop());
      const { messages, statuses, handlers } = recording();
      await harness.adapter.start(handlers);
      const { telegram } = harness;

      const update = telegram.textMessage({ chatId: 42, text: payloadText });
      const broken = { ...update, message: { ...update.message!, entities: 'bold' as never } };
      if (mode === 'webhook') expect(await telegram.postWebhook(broken)).toBe(200);
      else telegram.pushUpdate(broken);
      await vi.waitFor(() => expect(outsideErrors(statuses)).toHaveLength(1));
      expect(outsideErrors(statuses)[0]).toMatchObject({ kind: 'outside_error', event: 'message', error: expect.stringMatching(/^TypeError: entities\.find is not a function \(at /) as unknown });

      await harness.deliverText(harness.address, 'the next one');
      await vi.waitFor(() => expect(messages.map((message) => message.text)).toEqual(['the next one']));
      if (mode === 'polling') {
        // The offset moved past the broken update: it is not fetched again.
        await telegram.waitFor((fake) => fake.callsOf('getUpdates').some((call) => Number(call.params.offset) > update.update_id));
      }
      expect(outsideErrors(statuses)).toHaveLength(1);
      expect(JSON.stringify(statuses) + harness.logs.join('\n')).not.toContain('teal-marmot');
    });
  }
});

describe('slack (HTTP events)', () => {
  it('answers 200 to an event whose handling throws, reports it, and takes the next one', async () => {
    const harness = await startSlackHarness();
    cleanups.push(() => harness.close(), () => harness.adapter.stop());
    const { messages, statuses, handlers } = recording();
    await harness.adapter.start(handlers);
    const { slack, post, messageEvent } = harness;
    const dm = { platform: 'slack', conversationId: 'D0DIRECT1' };

    const event = { ...messageEvent(dm, payloadText), files: [null] };
    expect((await post(slack.envelope(event))).status).toBe(200);
    expect(outsideErrors(statuses)).toEqual([{ kind: 'outside_error', event: 'message', error: expect.stringMatching(/^TypeError: Cannot read properties of null \(reading '\w+'\) \(at /) as unknown }]);

    expect((await post(slack.envelope(messageEvent(dm, 'the next one')))).status).toBe(200);
    expect(messages.map((message) => message.text)).toEqual(['the next one']);
    expect(JSON.stringify(statuses) + harness.logs.join('\n')).not.toContain('teal-marmot');
  });
});

describe('discord', () => {
  it("reports a dispatch discord.js throws on, still hands it over, and takes the next one", async () => {
    const harness = await startDiscordHarness({ where: 'dm' });
    cleanups.push(() => harness.close(), () => harness.adapter.stop());
    const { messages, statuses, handlers } = recording();
    await harness.adapter.start(handlers);
    const { discord } = harness;

    // Discord's own docs example of a slash command has no `entitlements`: discord.js throws on it.
    discord.slashCommand({ channelId: discord.world.dmChannelId, name: 'status', args: payloadText, without: ['entitlements'] });
    await vi.waitFor(() => expect(outsideErrors(statuses)).toHaveLength(1));
    expect(outsideErrors(statuses)[0]).toMatchObject({ kind: 'outside_error', event: 'INTERACTION_CREATE', error: expect.stringMatching(/^TypeError: Cannot read properties of undefined \(reading 'reduce'\) \(at structures\/BaseInteraction\.js:\d+\)$/) as unknown });
    // The adapter read the raw dispatch before discord.js failed on it.
    await vi.waitFor(() => expect(messages.map((message) => message.text)).toEqual([`/status ${payloadText}`]));

    await harness.deliverText(harness.address, 'the next one');
    await vi.waitFor(() => expect(messages.map((message) => message.text)).toEqual([`/status ${payloadText}`, 'the next one']));
    expect(outsideErrors(statuses)).toHaveLength(1);
    expect(JSON.stringify(statuses) + harness.logs.join('\n')).not.toContain('teal-marmot');
  });
});
