/**
 * The discord.js client options the adapter uses keep nothing per conversation: after messages
 * from many people in guild channels and DMs, the client caches no messages, no users or members
 * besides the bot, and no DM channels.
 */
import { Client, Events, GatewayDispatchEvents } from 'discord.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { discordClientOptions } from '../../src/channels/discord/client-options.ts';
import { startFakeDiscordServer, type FakeDiscord } from '../fakes/fake-discord-server.ts';
import { fakeUser } from '../fakes/fake-discord-state.ts';

let discord: FakeDiscord;
let client: Client;

afterEach(async () => {
  await client.destroy();
  await discord.close();
});

describe('discord client caches', () => {
  it('hold no messages, users, members or DM channels after traffic', async () => {
    discord = await startFakeDiscordServer();
    client = new Client(discordClientOptions(discord.apiUrl));
    const ready = new Promise<void>((resolve) => client.once(Events.ClientReady, () => resolve()));
    await client.login(discord.token);
    await ready;
    let seen = 0;
    client.ws.on(GatewayDispatchEvents.MessageCreate, () => void (seen += 1));
    const channelsBefore = client.channels.cache.size;
    for (let index = 0; index < 20; index++) {
      const person = fakeUser(String(5_000 + index), `Person ${index}`);
      discord.messageCreate({ channelId: discord.world.channelId, content: `hello ${index}`, author: person });
      discord.messageCreate({ channelId: discord.world.threadId, content: `thread ${index}`, author: person });
      discord.messageCreate({ channelId: discord.addDmChannel(`Dm ${index}`).channelId, content: `dm ${index}` });
    }
    await vi.waitFor(() => expect(seen).toBe(60));
    const text = client.channels.cache.get(discord.world.channelId);
    const thread = client.channels.cache.get(discord.world.threadId);
    expect(text?.isTextBased() && text.messages.cache.size).toBe(0);
    expect(thread?.isTextBased() && thread.messages.cache.size).toBe(0);
    expect([...client.users.cache.keys()]).toEqual([discord.bot.id]);
    expect([...client.guilds.cache.get(discord.world.guildId)!.members.cache.keys()]).toEqual([discord.bot.id]);
    expect(client.channels.cache.size).toBe(channelsBefore);
  });
});
