/**
 * The real Discord payloads of the corpus (`test/fixtures/real-payloads/discord.json`: recorded
 * gateway frames, the API docs' examples, captured interactions) dispatched as they are through
 * the fake gateway websocket to the real gateway process and discord.js, each handled as its row
 * says: `reply` and `media` one answer in the right channel; `soft` at most one, only there;
 * `silent` no answer and no model call; `interaction` one answer through the interaction; `notice`
 * (a press on a button the bot no longer has) acknowledged, no model call. The process stays up.
 *
 * A sample is done when a sentinel message sent after it, in the same channel where it has one,
 * is answered (see the Telegram corpus test for why that is enough).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeDiscord } from '../fakes/fake-discord-server.ts';
import type { FakeStoredMessage } from '../fakes/fake-discord-state.ts';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import { approveGroups, discordServer, pairPeople } from '../helpers/approved-groups.ts';
import { startDiscordGatewayFakes, type DiscordGatewayFakes } from '../helpers/discord-gateway-fakes.ts';
import type { StartedGateway } from '../helpers/gateway-process.ts';
import { answerSentinels, askedFor, checkCommon, turnsSettled } from './corpus-checks.ts';
import { fill, samplesOf, type Sample } from './real-payloads.ts';

const wait = 30_000;
/** A 1x1 PNG, for the images the samples link. */
const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==', 'base64');

describe('the real Discord payloads, through the gateway', () => {
  let fakes: DiscordGatewayFakes;
  let model: FakeModelServer;
  let discord: FakeDiscord;
  let gateway: StartedGateway;
  let ids: Record<string, string>;
  /** Snowflakes shared by samples that say so (`shareLabels`), and the last one made. */
  const shared = new Map<string, string>();
  let last = '';
  let next = BigInt(Date.now() - 1_420_070_400_000) << 22n;

  const snowflake = () => (last = String((next += 4096n)));

  beforeAll(async () => {
    fakes = await startDiscordGatewayFakes('operator-corpus-discord-');
    ({ model, discord } = fakes);
    const paired = discord.addDmChannel('Paired Person');
    ids = {
      GUILD: discord.world.guildId,
      CH_MAIN: discord.world.channelId,
      CH_OPEN: discord.addChannel('open'),
      D_USER: paired.channelId,
      USER: paired.user.id,
      OTHER: snowflake(),
      OTHER2: snowflake(),
      BOT_ID: discord.bot.id,
      BOT_ROLE: snowflake(),
      CDN: discord.origin,
    };
    // The open channel answers without a mention (and so do its threads).
    writeFileSync(join(fakes.home, 'operator.json'), JSON.stringify({ groups: { [`discord:${ids.CH_OPEN}`]: { requireMention: false } } }));
    await approveGroups(fakes.home, [discordServer(ids.GUILD!)], `discord:${discord.world.person.id}`);
    await pairPeople(fakes.home, [{ platform: 'discord', userId: paired.user.id, name: 'Paired Person' }]);
    answerSentinels(model);
    gateway = await fakes.startGateway([discord.world.person.id]);
  }, 120_000);

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  /** The bot's messages standing in `channels`, keyed by id. */
  const standing = (channels: readonly string[]) => new Map(channels.flatMap((channel) => discord.botMessages(channel)).map((stored): [string, FakeStoredMessage] => [stored.message.id, stored]));

  /** Sends the sentinel after `sample` in its channel and resolves once it is answered. */
  async function sentinelAfter(sample: Sample, channel: string) {
    const text = `sentinel ${sample.name}`;
    const dm = channel === ids.D_USER;
    discord.messageCreate({ channelId: channel, content: dm ? text : `<@${discord.bot.id}> ${text}`, ...(dm ? { author: { id: ids.USER!, username: 'paired', global_name: 'Paired Person', discriminator: '0', avatar: null } as never } : {}) });
    await discord
      .waitFor((fake) => fake.botMessages(channel).find((stored) => stored.message.content.includes(`ack ${sample.name}`)), wait)
      .catch((error: unknown) => {
        throw new Error(`the sentinel after ${sample.name} was not answered in ${channel}: ${String(error)}\n${gateway.output.all().slice(-4000)}`);
      });
  }

  for (const sample of samplesOf('discord')) {
    it(`${sample.name}: ${sample.expect}`, async () => {
      const previous = last;
      const values = {
        ...ids,
        SNOW: snowflake,
        'SNOW:prev': previous,
        'SNOW:thread': () => (shared.get('thread') ?? (shared.set('thread', snowflake()), shared.get('thread')!)),
        ISO_NOW: new Date().toISOString(),
        ITOKEN: () => Buffer.from(`interaction:${last}:corpus-token`).toString('base64url'),
      };
      const delivered = fill(sample.deliver, values) as { t: string; d: Record<string, unknown> }[];
      const where = fill(sample.where, values) as { channel?: string; interaction?: boolean };
      const threadOf = (frame: { d: Record<string, unknown> }) => String(frame.d.channel_id ?? (frame.d.channel as { id?: string } | undefined)?.id ?? frame.d.id ?? '');
      const channels = [...new Set([ids.CH_MAIN!, ids.CH_OPEN!, ids.D_USER!, discord.world.dmChannelId, ...(shared.has('thread') ? [shared.get('thread')!] : [])])];
      const modelBefore = model.requests.length;
      const callbacksBefore = discord.callbacks.length;
      const before = new Set(standing(channels).keys());
      for (const frame of delivered) discord.dispatchRaw(frame.t, frame.d, (path) => (/\.(png|jpe?g|gif|webp)$/i.test(path) ? { bytes: png, contentType: 'image/png' } : { bytes: Buffer.from('a file'), contentType: 'application/octet-stream' }));
      // A recorded message in the bot's name (its own message coming back) is the sample's, not an answer.
      const recorded = new Set(delivered.map((frame) => String(frame.d.id ?? '')));
      const fresh = () => [...standing(channels)].filter(([id]) => !before.has(id) && !recorded.has(id)).map(([, stored]) => stored);
      const interactionId = delivered[0]!.t === 'INTERACTION_CREATE' ? String(delivered[0]!.d.id) : undefined;

      if (sample.expect === 'reply' || sample.expect === 'media') {
        await discord
          .waitFor(() => fresh().find((stored) => stored.message.channel_id === where.channel), wait)
          .catch((error: unknown) => {
            throw new Error(`no answer in ${where.channel} to ${sample.name}: ${String(error)}\n${gateway.output.all().slice(-4000)}`);
          });
      }
      if (interactionId) {
        await discord
          .waitFor((fake) => fake.callbacks.slice(callbacksBefore).find((callback) => callback.interactionId === interactionId), wait)
          .catch((error: unknown) => {
            throw new Error(`interaction ${sample.name} not acknowledged: ${String(error)}\n${gateway.output.all().slice(-4000)}`);
          });
      }
      // A message's channel is its conversation; other events (a thread deleted) get the sentinel in the main channel.
      const first = delivered[0]!;
      const home = where.channel ?? (first.t.startsWith('MESSAGE_') || first.t === 'TYPING_START' ? threadOf(first) : ids.CH_MAIN!);
      await sentinelAfter(sample, channels.includes(home) && home !== discord.world.dmChannelId ? home : ids.CH_MAIN!);
      await turnsSettled(gateway.output, wait);

      const sent = fresh().filter((stored) => !stored.message.content.includes(`ack ${sample.name}`) && stored.interactionToken === undefined);
      const asked = askedFor(model, modelBefore, sample.name);
      const inPlace = sent.filter((stored) => stored.message.channel_id === where.channel);
      const described = JSON.stringify(sent.map((stored) => ({ channel: stored.message.channel_id, text: stored.message.content.slice(0, 160) })));
      if (checkCommon(sample.expect, { sent: sent.length, inPlace: inPlace.length, asked, described })) {
        expect(gateway.child.exitCode).toBeNull();
        return;
      }
      switch (sample.expect) {
        case 'interaction':
          expect(discord.callbacks.slice(callbacksBefore).filter((callback) => callback.interactionId === interactionId)).toHaveLength(1);
          expect(sent, described).toEqual([]);
          break;
        case 'notice':
          expect(asked).toEqual([]);
          expect(discord.callbacks.slice(callbacksBefore).filter((callback) => callback.interactionId === interactionId)).toHaveLength(1);
          expect(sent, described).toEqual([]);
          break;
        default:
          throw new Error(`no check for ${sample.expect}`);
      }
      expect(gateway.child.exitCode).toBeNull();
    }, 90_000);
  }
});
