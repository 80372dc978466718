/**
 * Groups need an admin's yes, on Discord, through the real gateway process (discord.js against
 * the fake Discord, the real Anthropic SDK against the fake model), under the default
 * `groupPolicy: approval`. Discord's gateway does not say who added the bot to a server, so no
 * server is approved by being joined: the first mention there gets the server's pairing code,
 * once, then silence (in every channel and thread of that server), with nothing reaching the
 * model; an admin's `/pair CODE` in their direct messages approves the whole server, which is told.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { APIUser } from 'discord.js';
import { groupNoticeText } from '../../src/gateway/access/index.ts';
import type { FakeDiscord } from '../fakes/fake-discord-server.ts';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import { startDiscordGatewayFakes, type DiscordGatewayFakes } from '../helpers/discord-gateway-fakes.ts';
import type { StartedGateway } from '../helpers/gateway-process.ts';

const wait = 30_000;
const testTimeout = 120_000;

describe("groups need an admin's yes (Discord, through the gateway)", () => {
  let fakes: DiscordGatewayFakes;
  let model: FakeModelServer;
  let discord: FakeDiscord;
  let gateway: StartedGateway;
  let stranger: APIUser;
  let mention: string;

  beforeAll(async () => {
    fakes = await startDiscordGatewayFakes('operator-group-approval-discord-');
    ({ model, discord } = fakes);
    // The world's person is the admin; a stranger writes in the server's channels.
    gateway = await fakes.startGateway([discord.world.person.id]);
    stranger = discord.addDmChannel('Stranger').user;
    mention = `<@${discord.bot.id}>`;
  }, testTimeout);

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  const texts = (channelId: string) => discord.botMessages(channelId).map((stored) => stored.message.content);
  const botMessage = (channelId: string, contains: string) =>
    discord.waitFor((fake) => fake.botMessages(channelId).find((stored) => stored.message.content.includes(contains)), wait).catch((error: unknown) => {
      throw new Error(`no message containing "${contains}" in ${channelId}: ${String(error)}\n${gateway.output.all()}`);
    });

  /** Waits until the gateway's log shows `count` messages refused in the conversation `conversation`. */
  async function refusedIn(conversation: string, count: number): Promise<void> {
    const one = `"event":"message\\.refused"[^\\n]*"conversation":"${conversation}"`;
    await gateway.output.waitFor(new RegExp(`(?:[\\s\\S]*?${one}){${count}}`), { stream: 'stderr', timeoutMs: wait, label: `${count} refusals in ${conversation}` });
  }

  it("gives a server no admin approved its code at the first mention, once for the whole server; nothing reaches the model", async () => {
    const { channelId, threadId, guildId } = discord.world;
    discord.messageCreate({ channelId, content: 'an unaddressed remark', author: stranger });
    discord.messageCreate({ channelId, content: `${mention} who are you?`, author: stranger });
    const notice = await botMessage(channelId, '/pair ');
    expect(notice.message.content).toContain('operator pairing approve');
    discord.messageCreate({ channelId, content: `${mention} answer me`, author: stranger });
    // Another channel of the same server (a thread) waits with the same code: nothing is said there.
    discord.messageCreate({ channelId: threadId, content: `${mention} and here?`, author: stranger });
    await refusedIn(`discord:channel:${channelId}`, 2);
    await refusedIn(`discord:channel:${channelId}:thread:${threadId}`, 1);
    expect(texts(channelId)).toHaveLength(1);
    expect(texts(threadId)).toEqual([]);
    expect(model.requests).toHaveLength(0);
    const logged = gateway.output.stderr();
    expect(logged).toContain(`"group":"discord:guild:${guildId}"`);
  }, testTimeout);

  it("serves the whole server once an admin sends /pair in their direct messages, and tells it where the code was given", async () => {
    const { channelId, threadId, dmChannelId, guildId } = discord.world;
    const code = /\/pair ([A-Z0-9]{8})\b/.exec(texts(channelId)[0]!)![1]!;
    discord.messageCreate({ channelId: dmChannelId, content: `/pair ${code}` });
    expect((await botMessage(dmChannelId, 'Approved the group')).message.content).toContain(`discord:guild:${guildId} "Operator Test Guild"`);
    await botMessage(channelId, groupNoticeText);
    model.enqueue({ text: 'Answered in the thread.' });
    discord.messageCreate({ channelId: threadId, content: `${mention} now?`, author: stranger });
    await botMessage(threadId, 'Answered in the thread.');
    expect(model.requests).toHaveLength(1);
  }, testTimeout);
});
