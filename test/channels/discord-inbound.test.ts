/**
 * Discord inbound: session keys for guild channels, threads and DMs, mention and reply fields,
 * commands in text, attachments, which authors are ignored, slash commands (deferred at once,
 * completed by the first send), button presses (deferred update, ephemeral answer) and a
 * gateway that cannot take a message.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { NotAcceptedError, type ChannelAction, type InboundMessage } from '../../src/channels/types.ts';
import { notAcceptedNotice, type DiscordChannelOptions } from '../../src/channels/discord/index.ts';
import { fakeUser } from '../fakes/fake-discord-state.ts';
import { startDiscordHarness, type DiscordHarness } from './discord-harness.ts';

let harness: DiscordHarness;
let messages: InboundMessage[];
let actions: ChannelAction[];

async function start(onMessage?: (message: InboundMessage) => Promise<void>, adapter: Partial<DiscordChannelOptions> = {}): Promise<DiscordHarness> {
  harness = await startDiscordHarness({ adapter });
  messages = [];
  actions = [];
  await harness.adapter.start({
    onMessage: onMessage ?? (async (message) => void messages.push(message)),
    onAction: async (action) => void actions.push(action),
  });
  return harness;
}

function nextMessage(index: number): Promise<InboundMessage> {
  return vi.waitFor(() => messages[index] ?? Promise.reject(new Error(`message ${index} not delivered yet`)));
}

afterEach(async () => {
  await harness.adapter.stop();
  await harness.close();
});

describe('discord inbound messages', () => {
  it('keys guild channels, threads and DMs, and answers into the thread', async () => {
    const { discord, adapter } = await start();
    const { world } = discord;
    const { payload: sent } = discord.messageCreate({ channelId: world.channelId, content: 'hello all' });
    discord.messageCreate({ channelId: world.threadId, content: 'in a thread' });
    discord.messageCreate({ channelId: world.dmChannelId, content: 'just us' });
    const [channel, thread, dm] = [await nextMessage(0), await nextMessage(1), await nextMessage(2)];
    expect(channel).toMatchObject({ sessionKey: `discord:channel:${world.channelId}`, scope: 'group', mentioned: false, address: { platform: 'discord', conversationId: world.channelId } });
    expect(channel.address.threadId).toBeUndefined();
    expect(thread).toMatchObject({ sessionKey: `discord:channel:${world.channelId}:thread:${world.threadId}`, scope: 'group', address: { conversationId: world.channelId, threadId: world.threadId } });
    expect(dm).toMatchObject({ sessionKey: `discord:dm:${world.person.id}`, scope: 'dm', mentioned: true, address: { conversationId: world.dmChannelId }, sender: { id: world.person.id, name: 'Ada Person', username: 'ada_person', isBot: false } });
    expect(channel).toMatchObject({ id: channel.dedupeKey.replace('discord:', ''), dedupeKey: `discord:${channel.id}` });
    expect(channel.sentAt).toBe(Date.parse(sent.timestamp));

    await adapter.send(thread.address, { text: 'answer in the thread', replyTo: thread.id });
    await adapter.typing(thread.address);
    expect(discord.callsOf('createMessage')[0]!.path).toBe(`/channels/${world.threadId}/messages`);
    expect(discord.typing).toEqual([world.threadId]);
    expect(discord.botMessages(world.threadId).map((stored) => [stored.message.content, stored.message.referenced_message?.id])).toEqual([['answer in the thread', thread.id]]);
  });

  it('marks mentions of the bot (not @everyone) and strips them from the text', async () => {
    const { discord } = await start();
    const bot = `<@${discord.bot.id}>`;
    const channelId = discord.world.channelId;
    discord.messageCreate({ channelId, content: `${bot}, what time is it?` });
    discord.messageCreate({ channelId, content: `tell me <@!${discord.bot.id}> a joke` });
    discord.messageCreate({ channelId, content: `thanks ${bot}!` });
    discord.messageCreate({ channelId, content: '@everyone meeting now' });
    discord.messageCreate({ channelId, content: `<@${discord.world.person.id}> look` });
    const received = await Promise.all([0, 1, 2, 3, 4].map(nextMessage));
    expect(received.map((message) => [message.mentioned, message.text])).toEqual([
      [true, 'what time is it?'],
      [true, 'tell me a joke'],
      [true, 'thanks!'],
      [false, '@everyone meeting now'],
      [false, `<@${discord.world.person.id}> look`],
    ]);
  });

  it('counts a reply to the bot as a mention, even without the reply ping', async () => {
    const { discord, adapter } = await start();
    const channelId = discord.world.channelId;
    const { ids } = await adapter.send({ platform: 'discord', conversationId: channelId }, { text: 'I am the bot' });
    const person = discord.messageCreate({ channelId, content: 'a person speaks' });
    discord.messageCreate({ channelId, content: 'replying to you', replyTo: ids[0]! });
    discord.messageCreate({ channelId, content: 'quietly replying', replyTo: ids[0]!, pingReplied: false });
    discord.messageCreate({ channelId, content: 'replying to a person', replyTo: person.payload.id });
    const [, toBot, quiet, toPerson] = await Promise.all([0, 1, 2, 3].map(nextMessage));
    expect(toBot).toMatchObject({ mentioned: true, replyTo: { id: ids[0], fromBot: true, text: 'I am the bot' } });
    expect(quiet).toMatchObject({ mentioned: true, replyTo: { id: ids[0], fromBot: true } });
    expect(toPerson).toMatchObject({ mentioned: false, replyTo: { id: person.payload.id, fromBot: false, text: 'a person speaks' } });
  });

  it('reads a leading /command, also after the bot\'s mention', async () => {
    const { discord } = await start();
    discord.messageCreate({ channelId: discord.world.dmChannelId, content: '/Model gpt-5 fast' });
    discord.messageCreate({ channelId: discord.world.channelId, content: `<@${discord.bot.id}> /status` });
    discord.messageCreate({ channelId: discord.world.channelId, content: 'see /usr/bin' });
    const [model, status, path] = (await Promise.all([0, 1, 2].map(nextMessage))) as [InboundMessage, InboundMessage, InboundMessage];
    expect(model.command).toEqual({ name: 'model', args: 'gpt-5 fast' });
    expect(status).toMatchObject({ command: { name: 'status', args: '' }, mentioned: true, text: '/status' });
    expect(path.command).toBeUndefined();
  });

  it('ignores its own messages and other bots by default; allowBots lets bots through', async () => {
    const { discord, adapter } = await start();
    const channelId = discord.world.channelId;
    await adapter.send({ platform: 'discord', conversationId: channelId }, { text: 'from the bot' });
    discord.messageCreate({ channelId, content: 'echo of myself', author: discord.bot });
    discord.messageCreate({ channelId, content: 'beep', author: fakeUser('999', 'Other Bot', { bot: true }) });
    discord.messageCreate({ channelId, content: 'a person' });
    await nextMessage(0);
    expect(messages.map((message) => message.text)).toEqual(['a person']);

    await harness.adapter.stop();
    const withBots: InboundMessage[] = [];
    harness.adapter = harness.createAdapter({ allowBots: true });
    await harness.adapter.start({ onMessage: async (message) => void withBots.push(message), onAction: async () => {} });
    discord.messageCreate({ channelId, content: 'beep again', author: fakeUser('999', 'Other Bot', { bot: true }) });
    discord.messageCreate({ channelId, content: 'still not myself', author: discord.bot });
    discord.messageCreate({ channelId, content: 'done' });
    await vi.waitFor(() => expect(withBots.map((message) => message.text)).toEqual(['beep again', 'done']));
    expect(withBots[0]!.sender.isBot).toBe(true);
  });

  it('gives images and files as attachments, downloaded on demand', async () => {
    const { discord } = await start();
    const photo = new TextEncoder().encode('png bytes');
    const pdf = new Uint8Array([37, 80, 68, 70]);
    discord.messageCreate({ channelId: discord.world.dmChannelId, content: 'look at this', attachments: [{ filename: 'cat.png', contentType: 'image/png', bytes: photo }] });
    discord.messageCreate({ channelId: discord.world.dmChannelId, content: '', attachments: [{ filename: 'report.pdf', contentType: 'application/pdf', bytes: pdf }, { filename: 'notes', bytes: new Uint8Array([1]) }] });
    const [image, files] = [await nextMessage(0), await nextMessage(1)];
    expect(image.attachments).toMatchObject([{ kind: 'image', mediaType: 'image/png', name: 'cat.png', size: photo.length }]);
    expect(await image.attachments[0]!.download()).toEqual(photo);
    expect(files.text).toBe('');
    expect(files.attachments).toMatchObject([{ kind: 'file', mediaType: 'application/pdf', name: 'report.pdf', size: 4 }, { kind: 'file', mediaType: 'application/octet-stream', name: 'notes' }]);
    expect(await files.attachments[0]!.download()).toEqual(pdf);
  });

  it('asks the person to send again when the gateway cannot take a message, and logs other failures', async () => {
    const { discord } = await start(async (message) => {
      if (message.text === 'not now') throw new NotAcceptedError('store unavailable');
      if (message.text === 'broken') throw new Error('handler bug');
    });
    const refused = discord.messageCreate({ channelId: discord.world.channelId, content: 'not now' });
    discord.messageCreate({ channelId: discord.world.channelId, content: 'broken' });
    const notice = await discord.waitFor((fake) => fake.botMessages(discord.world.channelId)[0]);
    expect(notice.message).toMatchObject({ content: notAcceptedNotice, referenced_message: { id: refused.payload.id } });
    await vi.waitFor(() => expect(harness.logs.some((line) => line.includes('handler bug'))).toBe(true));
    expect(harness.logs.some((line) => line.includes('store unavailable'))).toBe(true);
    expect(discord.botMessages(discord.world.channelId)).toHaveLength(1);
  });
});

describe('discord interactions', () => {
  it('maps a slash command, defers it at once, and completes it with the first send', async () => {
    const { discord, adapter } = await start();
    const { payload } = discord.slashCommand({ channelId: discord.world.threadId, name: 'Model', args: ' gpt-5 ' });
    const message = await nextMessage(0);
    expect(message).toMatchObject({ id: payload.id, dedupeKey: `discord:interaction:${String(payload.id)}`, text: '/model gpt-5', command: { name: 'model', args: 'gpt-5' }, mentioned: true, sessionKey: `discord:channel:${discord.world.channelId}:thread:${discord.world.threadId}` });
    expect(discord.callbacks).toMatchObject([{ interactionId: payload.id, type: 5 }]);
    expect(discord.botMessages(discord.world.threadId)[0]!.message.flags).toBe(128);

    const first = await adapter.send(message.address, { text: 'Model set to **gpt-5**.', buttons: [[{ label: 'Undo', data: 'undo' }]] });
    const second = await adapter.send(message.address, { text: 'And another message.' });
    const shown = discord.botMessages(discord.world.threadId);
    expect(shown.map((stored) => [stored.message.id, stored.message.content, stored.message.flags])).toEqual([
      [first.ids[0], 'Model set to **gpt-5**.', 0],
      [second.ids[0], 'And another message.', 0],
    ]);
    expect(shown[0]!.message.components).toHaveLength(1);
    expect(discord.callsOf('editWebhookMessage')).toHaveLength(1);
    await adapter.edit(message.address, first.ids[0]!, { text: 'Model set to **gpt-5** (edited).' });
    expect(discord.callsOf('editWebhookMessage')).toHaveLength(2);
    expect(discord.message(first.ids[0]!)!.message.content).toBe('Model set to **gpt-5** (edited).');
  });

  it('keeps a slash command ahead of a message sent while it is being acknowledged', async () => {
    const { discord, adapter } = await start();
    const dm = discord.world.dmChannelId;
    // Acknowledging takes a while (rate limited once): the message after it comes in meanwhile.
    discord.failNext('interactionCallback', { status: 429, retryAfter: 0.3 });
    discord.slashCommand({ channelId: dm, name: 'help' });
    discord.messageCreate({ channelId: dm, content: 'and also this' });
    const command = await nextMessage(0);
    const after = await nextMessage(1);
    expect([command.command?.name, after.text]).toEqual(['help', 'and also this']);
    await adapter.send(command.address, { text: 'Here is the help.' });
    await adapter.send(after.address, { text: 'And the answer to that.' });
    // The command's answer completed its deferred response; the message's was a message of its own.
    expect(discord.callsOf('editWebhookMessage')).toHaveLength(1);
    expect(discord.botMessages(dm).map((stored) => [stored.message.content, stored.interactionToken !== undefined])).toEqual([
      ['Here is the help.', true],
      ['And the answer to that.', false],
    ]);
  });

  it('leaves an expired deferred response alone and posts a new message', async () => {
    let clock = 1_000_000;
    const { discord, adapter } = await start(undefined, { now: () => clock });
    discord.slashCommand({ channelId: discord.world.channelId, name: 'status' });
    const message = await nextMessage(0);
    expect(message.command).toEqual({ name: 'status', args: '' });
    clock += 15 * 60_000;
    await adapter.send(message.address, { text: 'too late for the response' });
    expect(discord.callsOf('editWebhookMessage')).toHaveLength(0);
    expect(discord.botMessages(discord.world.channelId).map((stored) => stored.message.content)).toEqual(['', 'too late for the response']);
  });

  it('answers a refused slash command with the notice in its deferred response', async () => {
    const { discord } = await start(async () => {
      throw new NotAcceptedError('stopping');
    });
    discord.slashCommand({ channelId: discord.world.dmChannelId, name: 'help' });
    await discord.waitFor((fake) => fake.botMessages(discord.world.dmChannelId)[0]?.message.content === notAcceptedNotice);
    expect(discord.callsOf('editWebhookMessage')).toHaveLength(1);
  });

  it('acknowledges a button press at once and answers it ephemerally', async () => {
    const { discord, adapter } = await start();
    const address = { platform: 'discord', conversationId: discord.world.channelId };
    const { ids } = await adapter.send(address, { text: 'Run it?', buttons: [[{ label: 'Yes', data: 'run:yes' }]] });
    const { payload } = discord.buttonPress({ channelId: discord.world.channelId, messageId: ids[0]!, customId: 'run:yes' });
    const action = await vi.waitFor(() => actions[0] ?? Promise.reject(new Error('no action yet')));
    expect(action).toMatchObject({ id: payload.id, dedupeKey: `discord:interaction:${String(payload.id)}`, data: 'run:yes', messageId: ids[0], sessionKey: `discord:channel:${discord.world.channelId}`, sender: { id: discord.world.person.id } });
    expect(discord.callbacks).toMatchObject([{ interactionId: payload.id, type: 6 }]);
    await adapter.answerAction!(action);
    expect(discord.callsOf('createFollowup')).toHaveLength(0);
    await adapter.answerAction!(action, 'Running.');
    const followup = discord.botMessages(discord.world.channelId).at(-1)!;
    expect(followup).toMatchObject({ ephemeral: true, message: { content: 'Running.', flags: 64 } });
  });
});
