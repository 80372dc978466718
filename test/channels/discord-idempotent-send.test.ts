/**
 * Idempotent sends on Discord: a send with an `idempotencyKey` carries a nonce with
 * `enforce_nonce`, so sending it again (after a lost answer, or from another process after a
 * crash) hands back the message Discord made the first time instead of a copy; each part of a
 * long message and each file has its own.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DeliveryError, type ConversationAddress } from '../../src/channels/types.ts';
import { startDiscordHarness, type DiscordHarness } from './discord-harness.ts';
import { makeTempDir } from '../helpers/temp-dir.ts';

let harness: DiscordHarness;
let channel: ConversationAddress;

const long = Array.from({ length: 3 }, (_, index) => `**Part ${index}** ${'word '.repeat(300)}`).join('\n\n');

async function start(): Promise<void> {
  harness = await startDiscordHarness();
  channel = { platform: 'discord', conversationId: harness.discord.world.channelId };
  await harness.adapter.start({ onMessage: async () => {}, onAction: async () => {} });
}

const botMessages = () => harness.discord.botMessages(harness.discord.world.channelId);

afterEach(async () => {
  await harness.adapter.stop();
  await harness.close();
});

describe('Discord idempotent sends', () => {
  it('sends a keyed message once, however often it is sent, part by part', async () => {
    await start();
    const first = await harness.adapter.send(channel, { text: long, idempotencyKey: 'reply-1' });
    expect(first.ids.length).toBeGreaterThan(1);
    const again = await harness.adapter.send(channel, { text: long, idempotencyKey: 'reply-1' });
    expect(again.ids).toEqual(first.ids);
    expect(botMessages()).toHaveLength(first.ids.length);
    // Each create carried a nonce of at most 25 characters, a different one per part, enforced.
    const creates = harness.discord.calls.filter((call) => call.route === 'createMessage').map((call) => call.body as { nonce?: string; enforce_nonce?: boolean });
    expect(creates.every((body) => body.enforce_nonce === true && typeof body.nonce === 'string' && body.nonce.length <= 25)).toBe(true);
    expect(new Set(creates.map((body) => body.nonce)).size).toBe(first.ids.length);
    // Another key, or none, is another message.
    await harness.adapter.send(channel, { text: 'short', idempotencyKey: 'reply-2' });
    await harness.adapter.send(channel, { text: 'short' });
    await harness.adapter.send(channel, { text: 'short' });
    expect(botMessages()).toHaveLength(first.ids.length + 3);
  });

  it('gets back the message Discord made when the answer to the create was lost', async () => {
    await start();
    // Discord takes the message, and the connection drops before the adapter hears its id.
    harness.discord.failNext('createMessage', { dropConnection: true, afterCarryingOut: true });
    const error = await harness.adapter.send(channel, { text: 'made once', idempotencyKey: 'reply-3' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DeliveryError);
    expect((error as DeliveryError).retryable).toBe(true);
    expect(botMessages().map((stored) => stored.message.content)).toEqual(['made once']);
    const sent = await harness.adapter.send(channel, { text: 'made once', idempotencyKey: 'reply-3' });
    expect(botMessages().map((stored) => stored.message.id)).toEqual(sent.ids);
  });

  it('sends each file of a keyed message once', async () => {
    await start();
    const dir = await makeTempDir('operator-discord-nonce-');
    const path = join(dir, 'notes.txt');
    writeFileSync(path, 'notes');
    const file = { path, name: 'notes.txt', mediaType: 'text/plain', size: 5 };
    const first = await harness.adapter.send(channel, { text: '', files: [file], idempotencyKey: 'reply-4:file:0' });
    const again = await harness.adapter.send(channel, { text: '', files: [file], idempotencyKey: 'reply-4:file:0' });
    expect(again.ids).toEqual(first.ids);
    expect(botMessages()).toHaveLength(1);
  });
});
