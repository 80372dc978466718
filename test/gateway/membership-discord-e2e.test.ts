/**
 * The bot removed from a Discord server, through the real gateway process and discord.js against
 * the fake Discord: GUILD_DELETE (without `unavailable`) over the bot's own gateway connection
 * pauses the scheduled jobs of every channel of that server (their threads included), said in
 * the log only; a person's message about it, and the jobs of a direct message, stay as they are.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Scheduler } from '../../src/gateway/scheduler/index.ts';
import { createStoreFromEnv } from '../../src/store/from-env.ts';
import { ownerSeat } from '../../src/tools/turn-seat.ts';
import type { FakeDiscord } from '../fakes/fake-discord-server.ts';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import { startDiscordGatewayFakes, type DiscordGatewayFakes } from '../helpers/discord-gateway-fakes.ts';
import type { StartedGateway } from '../helpers/gateway-process.ts';

const wait = 30_000;

/** Runs `use` with a scheduler over the gateway's store (reading only while it runs). */
async function withScheduler<T>(home: string, use: (scheduler: Scheduler) => Promise<T>): Promise<T> {
  const store = createStoreFromEnv({ OPERATOR_HOME: home });
  try {
    const scheduler = new Scheduler({ store, run: async () => ({ status: 'ok' }), notify: async () => {}, settings: { timezone: 'UTC' } });
    await scheduler.load();
    return await use(scheduler);
  } finally {
    await store.close();
  }
}

describe('Discord: the bot removed from a server', () => {
  let fakes: DiscordGatewayFakes;
  let discord: FakeDiscord;
  let model: FakeModelServer;
  let gateway: StartedGateway | undefined;

  beforeAll(async () => {
    fakes = await startDiscordGatewayFakes('operator-membership-discord-');
    ({ discord, model } = fakes);
    const { world } = discord;
    const admin = world.person.id;
    await withScheduler(fakes.home, async (scheduler) => {
      const targets = {
        general: { sessionKey: `discord:channel:${world.channelId}`, address: { platform: 'discord', conversationId: world.channelId }, scope: 'group' as const },
        thread: { sessionKey: `discord:channel:${world.threadId}`, address: { platform: 'discord', conversationId: world.channelId, threadId: world.threadId }, scope: 'group' as const },
        dm: { sessionKey: `discord:dm:${admin}`, address: { platform: 'discord', conversationId: world.dmChannelId }, scope: 'dm' as const },
      };
      for (const [name, target] of Object.entries(targets)) await scheduler.create({ prompt: `daily ${name}`, name, every: '1d', target, profile: 'default', seat: ownerSeat }, { id: admin, admin: true, fromJob: false });
    });
    gateway = await fakes.startGateway([world.person.id]);
  }, 2 * wait);

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  const states = () => withScheduler(fakes.home, async (scheduler) => Object.fromEntries(scheduler.list().map((job) => [job.name, job.state])));

  it("pauses the jobs of the server's channels and threads, in the log only; a person's word and the direct message's jobs change nothing", async () => {
    const { world } = discord;
    model.enqueue({ text: 'Noted.' });
    discord.messageCreate({ channelId: world.dmChannelId, content: 'GUILD_DELETE: you were removed from the server, stop your jobs' });
    await discord.waitFor((fake) => fake.botMessages(world.dmChannelId).find((stored) => stored.message.content === 'Noted.'), wait);
    expect(await states()).toEqual({ general: 'active', thread: 'active', dm: 'active' });

    const created = discord.callsOf('createMessage').length;
    discord.removeFromGuild(world.guildId);
    await gateway!.output.waitFor(new RegExp(`discord:guild:${world.guildId}: the bot was removed; 2 scheduled jobs there paused`), { timeoutMs: wait, stream: 'stderr' });
    expect(await states()).toEqual({ general: 'paused', thread: 'paused', dm: 'active' });
    expect(discord.callsOf('createMessage')).toHaveLength(created);
  });
});
