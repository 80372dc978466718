/**
 * A Discord voice message, end to end: the real gateway process with its Discord channel, the fake
 * Discord serving the recording at its attachment URL, and the fake model server answering
 * OpenAI's `/v1/audio/transcriptions` and the chat call. The voice message reaches the model as
 * the person's words, marked with the length Discord gave.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import type { FakeDiscord } from '../fakes/fake-discord-server.ts';
import type { StartedGateway } from '../helpers/gateway-process.ts';
import { startDiscordGatewayFakes, type DiscordGatewayFakes } from '../helpers/discord-gateway-fakes.ts';

describe('voice messages through Discord', () => {
  let fakes: DiscordGatewayFakes;
  let model: FakeModelServer;
  let discord: FakeDiscord;
  let gateway: StartedGateway;

  beforeAll(async () => {
    fakes = await startDiscordGatewayFakes('operator-voice-discord-e2e-');
    ({ model, discord } = fakes);
    gateway = await fakes.startGateway([discord.world.person.id], { OPENAI_API_KEY: 'sk-test-voice-discord-0123456789', OPENAI_BASE_URL: model.openaiBaseURL });
  });

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  it("gives a voice message to the model as the person's words", async () => {
    const bytes = new TextEncoder().encode('OggS discord voice');
    model.enqueueTranscript({ text: 'bring the charger' });
    model.enqueue({ text: 'Charger, noted.' });
    discord.messageCreate({ channelId: discord.world.dmChannelId, content: '', attachments: [{ filename: 'voice-message.ogg', contentType: 'audio/ogg', bytes, durationSecs: 11.4, waveform: 'AAAAAA==' }] });
    await discord.waitFor((fake) => fake.botMessages(discord.world.dmChannelId).find((stored) => stored.message.content.includes('Charger, noted.')), 15_000).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${gateway.output.all()}`);
    });
    expect(JSON.stringify(model.requests.at(-1)!.body.messages.at(-1))).toContain('[voice, 0:11] bring the charger');
    expect(model.transcriptions).toHaveLength(1);
    expect(model.transcriptions[0]).toMatchObject({ fileName: 'voice-message.ogg', mediaType: 'audio/ogg' });
    expect(Buffer.from(model.transcriptions[0]!.bytes).toString()).toBe('OggS discord voice');
  });
});
