/**
 * Idempotent sends through the real gateway process on Discord: when Discord takes a message and
 * the answer never reaches the gateway, sending it again hands back the same message (a nonce
 * with `enforce_nonce`), so the person sees one finished answer, not a copy or an unfinished
 * preview beside it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeDiscord } from '../fakes/fake-discord-server.ts';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import { startDiscordGatewayFakes, type DiscordGatewayFakes } from '../helpers/discord-gateway-fakes.ts';
import type { StartedGateway } from '../helpers/gateway-process.ts';

describe('Discord: a send whose answer was lost', () => {
  let fakes: DiscordGatewayFakes;
  let model: FakeModelServer;
  let discord: FakeDiscord;
  let gateway: StartedGateway;

  beforeAll(async () => {
    fakes = await startDiscordGatewayFakes('operator-discord-nonce-');
    ({ model, discord } = fakes);
    gateway = await fakes.startGateway([discord.world.person.id]);
  });

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  const texts = () => discord.botMessages(discord.world.dmChannelId).map((stored) => stored.message.content);

  it('finishes the preview Discord made though the gateway never heard its id', async () => {
    const answer = `A streamed answer, ${'piece by piece, '.repeat(12)}done.`;
    model.enqueue({ text: answer, chunkSize: 6, delayMs: 60 });
    // The first create is the preview: Discord makes it, and the connection drops before the answer.
    discord.failNext('createMessage', { dropConnection: true, afterCarryingOut: true });
    const before = texts().length;
    discord.messageCreate({ channelId: discord.world.dmChannelId, content: 'tell me something long' });
    await discord.waitFor((fake) => fake.botMessages(discord.world.dmChannelId).find((stored) => stored.message.content === answer), 20_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    // One message, finished: the preview sent again came back as the one Discord had made.
    expect(texts().slice(before)).toEqual([answer]);
  });

  it('sends a reply once when the answer to its create was lost', async () => {
    model.enqueue({ text: 'Short and sweet.' });
    discord.failNext('createMessage', { dropConnection: true, afterCarryingOut: true });
    const before = texts().length;
    const creates = () => discord.calls.filter((call) => call.route === 'createMessage').length;
    const createsBefore = creates();
    discord.messageCreate({ channelId: discord.world.dmChannelId, content: 'a quick one' });
    await discord.waitFor((fake) => fake.botMessages(discord.world.dmChannelId).find((stored) => stored.message.content === 'Short and sweet.'), 20_000);
    // The delivery ledger tries again after the lost answer; Discord hands back the same message.
    await discord.waitFor(() => creates() >= createsBefore + 2 || undefined, 20_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(texts().slice(before)).toEqual(['Short and sweet.']);
  });
});
