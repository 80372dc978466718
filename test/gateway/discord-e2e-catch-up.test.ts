/**
 * Discord messages sent while the gateway was down, end to end: the real gateway process is
 * killed, people write meanwhile (Discord keeps those messages in the channel and never delivers
 * them again), and the next start answers each of them once, in order, through the same access
 * rules as a live message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeDiscord } from '../fakes/fake-discord-server.ts';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import { startDiscordGatewayFakes, type DiscordGatewayFakes } from '../helpers/discord-gateway-fakes.ts';
import type { StartedGateway } from '../helpers/gateway-process.ts';
import { approveGroups, discordServer } from '../helpers/approved-groups.ts';

/**
 * How long a start or an answer may take: generous, since this file starts the gateway four times
 * (about 1.6 s of CPU each, discord.js's import half of it) and a machine running test files side
 * by side can give it a small share of a core; waits end at the event, not at the limit.
 */
const wait = 60_000;

/** The text of every user message a model request carried. */
const userTexts = (body: { messages: { role: string; content: unknown }[] }) =>
  body.messages.filter((message) => message.role === 'user').map((message) => (typeof message.content === 'string' ? message.content : JSON.stringify(message.content)));

describe('Discord: messages sent while the gateway was down', { timeout: 4 * wait }, () => {
  let fakes: DiscordGatewayFakes;
  let model: FakeModelServer;
  let discord: FakeDiscord;
  let gateway: StartedGateway | undefined;
  let mention: string;

  beforeAll(async () => {
    fakes = await startDiscordGatewayFakes('operator-discord-catch-up-');
    ({ model, discord } = fakes);
    mention = `<@${discord.bot.id}>`;
    // The fake's server is one an admin approved (groupPolicy approval is the default): a message
    // read back from history carries no server id, so this also checks that it is found.
    await approveGroups(fakes.home, [discordServer(discord.world.guildId)], `discord:${discord.world.person.id}`);
  });

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  const botTexts = (channelId: string) => discord.botMessages(channelId).map((stored) => stored.message.content);
  const botMessage = (channelId: string, text: string) => discord.waitFor((fake) => fake.botMessages(channelId).find((stored) => stored.message.content === text), wait);

  it('answers each message sent while it was down once, after the restart, in order', async () => {
    const { dmChannelId, channelId } = discord.world;
    gateway = await fakes.startGateway([discord.world.person.id], {}, undefined, wait);
    // The gateway talks in the DM and the channel first: they are conversations it knows.
    model.enqueue({ text: 'Hello in the DM.' }, { text: 'Hello in the channel.' });
    discord.messageCreate({ channelId: dmChannelId, content: 'hi' });
    await botMessage(dmChannelId, 'Hello in the DM.');
    discord.messageCreate({ channelId, content: `${mention} hi all` });
    await botMessage(channelId, 'Hello in the channel.');
    // A kill between Discord taking a reply and the gateway noting it would send that reply again
    // (no send is idempotent here; docs/storage.md says so): the kill waits until it is noted.
    await new Promise((resolve) => setTimeout(resolve, 500));
    await gateway.kill();
    gateway = undefined;

    // Written while no gateway is connected: no session hears them.
    discord.messageCreate({ channelId: dmChannelId, content: 'first while you were away' });
    discord.messageCreate({ channelId, content: 'chatter that does not mention the bot' });
    discord.messageCreate({ channelId, content: `${mention} a question while you were away` });
    discord.messageCreate({ channelId: dmChannelId, content: 'second while you were away' });
    const requestsBefore = model.requests.length;
    model.enqueue({ text: 'Caught up: answer one.' }, { text: 'Caught up: answer two.' }, { text: 'Caught up: answer three.' });
    gateway = await fakes.startGateway([discord.world.person.id], {}, undefined, wait);
    await discord.waitFor(() => model.requests.length >= requestsBefore + 3 || undefined, wait);
    await discord.waitFor((fake) => fake.botMessages(dmChannelId).length + fake.botMessages(channelId).length >= 5 || undefined, wait);
    const lastUserText = (index: number) => userTexts(model.requests[index]!.body).at(-1)!;
    const turns = [0, 1, 2].map((offset) => lastUserText(requestsBefore + offset));
    // One turn per message that asks for one, each conversation's in the order they were sent.
    const dmTurns = turns.filter((text) => text.includes('while you were away') && !text.includes('question'));
    expect(dmTurns.map((text) => (text.includes('first') ? 'first' : 'second'))).toEqual(['first', 'second']);
    expect(turns.filter((text) => text.includes('a question while you were away'))).toHaveLength(1);
    // The chatter was overheard as a live message without a mention is: context of the turn, not one of its own.
    const channelRequest = model.requests.slice(requestsBefore).find((request) => JSON.stringify(request.body).includes('a question while you were away'))!;
    expect(JSON.stringify(channelRequest.body)).toContain('chatter that does not mention the bot');
    expect(turns.every((text) => text.includes('while you were away'))).toBe(true);

    // Another restart finds nothing new: nothing is answered twice.
    await gateway.stop();
    gateway = await fakes.startGateway([discord.world.person.id], {}, undefined, wait);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(model.requests.length).toBe(requestsBefore + 3);
    expect(botTexts(dmChannelId)).toHaveLength(3);
    expect(botTexts(channelId)).toHaveLength(2);
    expect([...botTexts(dmChannelId), ...botTexts(channelId)].filter((text) => text.startsWith('Caught up')).sort()).toEqual(['Caught up: answer one.', 'Caught up: answer three.', 'Caught up: answer two.']);
  });

  it("treats a stranger's messages sent while it was down as it would live: an admin command refused, a question answered as the stranger's", async () => {
    const { channelId } = discord.world;
    const stranger = discord.addDmChannel('Stranger').user;
    await gateway?.kill();
    gateway = undefined;
    discord.messageCreate({ channelId, content: `${mention} /reload`, author: stranger });
    discord.messageCreate({ channelId, content: `${mention} run something for me`, author: stranger });
    const requestsBefore = model.requests.length;
    model.enqueue({ text: 'For the stranger.' });
    gateway = await fakes.startGateway([discord.world.person.id], {}, undefined, wait);
    await botMessage(channelId, '/reload is for admins only.');
    await botMessage(channelId, 'For the stranger.');
    // An approved server is open to anyone in it, live or caught up; the turn is the stranger's own.
    expect(model.requests.length).toBe(requestsBefore + 1);
    const last = userTexts(model.requests.at(-1)!.body).at(-1)!;
    expect(last).toContain('run something for me');
    expect(last).toContain('Stranger');
  });
});
