/**
 * Telegram inbound: session keys and forum topics, mention gating fields, commands, replies,
 * photo and document attachments, button presses, and handlers that fail or take long.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { NotAcceptedError, type ChannelAction, type InboundMessage } from '../../src/channels/types.ts';
import { startTelegramHarness, type TelegramHarness } from './telegram-harness.ts';

const group = -1001234567890;
let harness: TelegramHarness;
let messages: InboundMessage[];
let actions: ChannelAction[];

async function start(onMessage?: (message: InboundMessage) => Promise<void>): Promise<TelegramHarness> {
  harness = await startTelegramHarness({ mode: 'polling' });
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

describe('telegram inbound', () => {
  it('keys direct messages, groups and forum topics, and answers into the same topic', async () => {
    const { telegram, adapter } = await start();
    const hi = telegram.textMessage({ chatId: 42, text: 'hi' });
    telegram.pushUpdate(hi);
    telegram.pushUpdate(telegram.textMessage({ chatId: group, chatType: 'supergroup', text: 'hello all' }));
    telegram.pushUpdate(telegram.textMessage({ chatId: group, chatType: 'supergroup', threadId: 17, text: 'in a topic' }));
    const [dm, plainGroup, topic] = [await nextMessage(0), await nextMessage(1), await nextMessage(2)];
    expect(dm).toMatchObject({ sessionKey: 'telegram:dm:42', scope: 'dm', mentioned: true, address: { platform: 'telegram', conversationId: '42' } });
    // Telegram's send time, in whole seconds.
    expect(dm.sentAt).toBe(hi.message!.date * 1000);
    expect(plainGroup).toMatchObject({ sessionKey: `telegram:group:${group}`, scope: 'group', mentioned: false });
    expect(plainGroup.address.threadId).toBeUndefined();
    expect(topic).toMatchObject({ sessionKey: `telegram:group:${group}:topic:17`, scope: 'group', address: { conversationId: String(group), threadId: '17' } });
    expect(topic.replyTo).toBeUndefined();

    await adapter.send(topic.address, { text: 'answer in the topic', replyTo: topic.id });
    await adapter.typing(topic.address);
    const [sent] = telegram.callsOf('sendMessage');
    expect(sent!.params).toMatchObject({ chat_id: group, message_thread_id: 17, reply_parameters: { message_id: Number(topic.id), allow_sending_without_reply: true } });
    expect(telegram.callsOf('sendChatAction')[0]!.params).toMatchObject({ chat_id: group, action: 'typing', message_thread_id: 17 });
    expect(telegram.messages(group, { threadId: 17 }).map((message) => message.text)).toEqual(['answer in the topic']);
  });

  it('marks mentions and replies to the bot, and strips the mention from the text', async () => {
    const { telegram } = await start();
    const bot = `@${telegram.bot.username}`;
    telegram.pushUpdate(telegram.textMessage({ chatId: group, text: `${bot}, what time is it?` }));
    telegram.pushUpdate(telegram.textMessage({ chatId: group, text: `tell me ${bot} a joke` }));
    telegram.pushUpdate(telegram.textMessage({ chatId: group, text: 'talking about @someone_else here' }));
    const mentioned = [await nextMessage(0), await nextMessage(1), await nextMessage(2)];
    expect(mentioned.map((message) => [message.mentioned, message.text])).toEqual([
      [true, 'what time is it?'],
      [true, 'tell me a joke'],
      [false, 'talking about @someone_else here'],
    ]);

    const { ids } = await harness.adapter.send({ platform: 'telegram', conversationId: String(group) }, { text: 'I am the bot' });
    telegram.pushUpdate(telegram.textMessage({ chatId: group, text: 'replying to you', replyTo: Number(ids[0]) }));
    telegram.pushUpdate(telegram.textMessage({ chatId: group, text: 'replying to a person', replyTo: Number(mentioned[2]!.id) }));
    const [toBot, toPerson] = [await nextMessage(3), await nextMessage(4)];
    expect(toBot).toMatchObject({ mentioned: true, replyTo: { id: ids[0], fromBot: true, text: 'I am the bot' } });
    expect(toPerson).toMatchObject({ mentioned: false, replyTo: { id: mentioned[2]!.id, fromBot: false } });
  });

  it('finds a mention without entities and a text_mention of the bot', async () => {
    const { telegram } = await start();
    telegram.pushUpdate(telegram.textMessage({ chatId: group, text: `hey @${telegram.bot.username.toUpperCase()} there`, entities: [] }));
    telegram.pushUpdate(telegram.textMessage({ chatId: group, text: 'Operator please help', entities: [{ type: 'text_mention', offset: 0, length: 8, user: { id: telegram.bot.id, is_bot: true, first_name: 'Operator' } }] }));
    expect(await nextMessage(0)).toMatchObject({ mentioned: true, text: 'hey there' });
    expect(await nextMessage(1)).toMatchObject({ mentioned: true, text: 'please help' });
  });

  it('parses commands, with or without the bot name, and ignores commands for other bots', async () => {
    const { telegram } = await start();
    telegram.pushUpdate(telegram.textMessage({ chatId: group, text: `/Model@${telegram.bot.username} gpt-5 fast` }));
    telegram.pushUpdate(telegram.textMessage({ chatId: 42, text: '/status' }));
    telegram.pushUpdate(telegram.textMessage({ chatId: group, text: '/help@other_helper_bot' }));
    const [named, plain, other] = [await nextMessage(0), await nextMessage(1), await nextMessage(2)];
    expect(named).toMatchObject({ command: { name: 'model', args: 'gpt-5 fast' }, mentioned: true, text: '/Model gpt-5 fast' });
    expect(plain).toMatchObject({ command: { name: 'status', args: '' }, text: '/status' });
    expect(other.command).toBeUndefined();
    expect(other.mentioned).toBe(false);
  });

  it('gives photos as images (largest size) and documents as files, downloaded on demand', async () => {
    const { telegram } = await start();
    const photoBytes = new TextEncoder().encode('the largest photo bytes');
    telegram.pushUpdate(telegram.photoMessage({ chatId: 42, caption: 'look at this', bytes: photoBytes }));
    telegram.pushUpdate(telegram.documentMessage({ chatId: 42, fileName: 'report.pdf', mimeType: 'application/pdf', bytes: new Uint8Array([37, 80, 68, 70]) }));
    const [photo, document] = [await nextMessage(0), await nextMessage(1)];
    expect(photo.text).toBe('look at this');
    expect(photo.attachments).toHaveLength(1);
    expect(photo.attachments[0]).toMatchObject({ kind: 'image', mediaType: 'image/jpeg', size: photoBytes.length });
    expect(await photo.attachments[0]!.download()).toEqual(photoBytes);
    expect(document.text).toBe('');
    expect(document.attachments[0]).toMatchObject({ kind: 'file', name: 'report.pdf', mediaType: 'application/pdf', size: 4 });
    expect(await document.attachments[0]!.download()).toEqual(new Uint8Array([37, 80, 68, 70]));
    expect(telegram.callsOf('getFile')).toHaveLength(2);
  });

  it('turns a button press into an action with its message, answered through answerCallbackQuery', async () => {
    const { telegram, adapter } = await start();
    const { ids } = await adapter.send({ platform: 'telegram', conversationId: '42' }, { text: 'Allow?', buttons: [[{ label: 'Yes', data: 'approve' }]] });
    const press = telegram.callbackQuery({ chatId: 42, messageId: Number(ids[0]), data: 'approve' });
    telegram.pushUpdate(press);
    const action = await vi.waitFor(() => actions[0] ?? Promise.reject(new Error('no action yet')));
    expect(action).toMatchObject({ data: 'approve', messageId: ids[0], sessionKey: 'telegram:dm:42', dedupeKey: `telegram:update:${press.update_id}` });
    await adapter.answerAction!(action, 'Approved.');
    expect(telegram.answeredCallbacks).toEqual([{ id: action.id, text: 'Approved.' }]);
  });

  it('keeps going when a handler throws, logging the failure', async () => {
    const seen: string[] = [];
    const { telegram, logs } = await start(async (message) => {
      seen.push(message.text);
      if (message.text === 'boom') throw new Error('handler exploded');
    });
    telegram.pushUpdate(telegram.textMessage({ chatId: 1, text: 'boom' }));
    telegram.pushUpdate(telegram.textMessage({ chatId: 3, text: 'fast' }));
    await vi.waitFor(() => expect(seen).toEqual(['boom', 'fast']));
    await vi.waitFor(() => expect(logs.some((line) => line.includes('handler exploded'))).toBe(true));
    telegram.pushUpdate(telegram.textMessage({ chatId: 1, text: 'after the failure' }));
    await vi.waitFor(() => expect(seen).toContain('after the failure'));
  });

  it('moves the poll offset past an update only once the handler has taken it', async () => {
    let release!: () => void;
    const taken = new Promise<void>((resolve) => (release = resolve));
    const seen: string[] = [];
    const { telegram } = await start(async (message) => {
      seen.push(message.text);
      if (message.text === 'first') await taken;
    });
    const first = telegram.textMessage({ chatId: 1, text: 'first' });
    telegram.pushUpdate(first);
    telegram.pushUpdate(telegram.textMessage({ chatId: 2, text: 'second' }));
    await vi.waitFor(() => expect(seen).toEqual(['first']));
    expect(telegram.callsOf('getUpdates').some((call) => Number(call.params.offset) > first.update_id)).toBe(false);
    release();
    await vi.waitFor(() => expect(seen).toEqual(['first', 'second']));
    await telegram.waitFor((fake) => fake.callsOf('getUpdates').some((call) => Number(call.params.offset) > first.update_id + 1));
  });

  it('leaves an update the gateway did not take for the next poll, which brings it again', async () => {
    const seen: string[] = [];
    const { telegram, logs } = await start(async (message) => {
      seen.push(message.text);
      if (seen.length === 1) throw new NotAcceptedError('store unavailable');
    });
    telegram.pushUpdate(telegram.textMessage({ chatId: 1, text: 'keep me' }));
    telegram.pushUpdate(telegram.textMessage({ chatId: 1, text: 'and me' }));
    await vi.waitFor(() => expect(seen).toEqual(['keep me', 'keep me', 'and me']));
    expect(logs.some((line) => line.includes('left for the next poll') && line.includes('store unavailable'))).toBe(true);
  });

  it('ignores updates that carry nothing to answer', async () => {
    const { telegram } = await start();
    const sticker = telegram.textMessage({ chatId: 42, text: 'placeholder' });
    delete (sticker.message as { text?: string }).text;
    telegram.pushUpdate(sticker);
    telegram.pushUpdate(telegram.textMessage({ chatId: 42, text: 'real text' }));
    expect((await nextMessage(0)).text).toBe('real text');
    expect(messages).toHaveLength(1);
  });
});
