/**
 * Telegram outbound: HTML rendering on the wire, plain-text fallback when Telegram refuses the
 * markup, rate limits (retry_after honoured, then given up with retryAfterMs), error
 * classification, edits to identical content, the command menu.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DeliveryError, type ConversationAddress } from '../../src/channels/types.ts';
import { startTelegramHarness, type TelegramHarness } from './telegram-harness.ts';

const dm: ConversationAddress = { platform: 'telegram', conversationId: '42' };
let harness: TelegramHarness;

async function start(adapter: Parameters<typeof startTelegramHarness>[0]['adapter'] = {}): Promise<TelegramHarness> {
  harness = await startTelegramHarness({ mode: 'polling', adapter });
  await harness.adapter.start({ onMessage: async () => {}, onAction: async () => {} });
  return harness;
}

async function failure(promise: Promise<unknown>): Promise<DeliveryError> {
  const error = await promise.then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(DeliveryError);
  return error as DeliveryError;
}

afterEach(async () => {
  await harness.adapter.stop();
  await harness.close();
});

describe('telegram outbound', () => {
  it('sends Markdown as Telegram HTML', async () => {
    const { telegram, adapter } = await start();
    await adapter.send(dm, { text: '## Result\n\n**Done** in `main.ts` — see [docs](https://example.com/a?b=1&c=2) & <more>' });
    const [call] = telegram.callsOf('sendMessage');
    expect(call!.params.parse_mode).toBe('HTML');
    expect(call!.params.text).toBe('<b>Result</b>\n\n<b>Done</b> in <code>main.ts</code> — see <a href="https://example.com/a?b=1&amp;c=2">docs</a> &amp; &lt;more&gt;');
    expect(telegram.messages(42)[0]!.text).toBe('Result\n\nDone in main.ts — see docs & <more>');
  });

  it('resends a chunk as plain text when Telegram cannot parse its entities', async () => {
    const { telegram, adapter, logs } = await start();
    telegram.failNext('sendMessage', { status: 400, description: 'Bad Request: can\'t parse entities: Unsupported start tag "x" at byte offset 3' });
    const { ids } = await adapter.send(dm, { text: 'Read **this** [page](https://example.com)' });
    const calls = telegram.callsOf('sendMessage');
    expect(calls).toHaveLength(2);
    expect(calls[0]!.params.parse_mode).toBe('HTML');
    expect(calls[1]!.params.parse_mode).toBeUndefined();
    expect(calls[1]!.params.text).toBe('Read this page (https://example.com)');
    expect(telegram.messages(42).map((message) => [String(message.messageId), message.text])).toEqual([[ids[0], 'Read this page (https://example.com)']]);
    expect(logs.some((line) => line.includes("can't parse entities"))).toBe(true);
  });

  it('falls back per chunk of a long message, and edits fall back too', async () => {
    const { telegram, adapter } = await start();
    const long = Array.from({ length: 3 }, (_, index) => `**Part ${index}** ${'word '.repeat(900)}`).join('\n\n');
    telegram.failNext('sendMessage', { status: 400, description: "Bad Request: can't parse entities: Can't find end tag" });
    const { ids } = await adapter.send(dm, { text: long });
    expect(ids.length).toBeGreaterThan(1);
    const modes = telegram.callsOf('sendMessage').map((call) => call.params.parse_mode ?? 'plain');
    expect(modes).toEqual(['HTML', 'plain', ...ids.slice(1).map(() => 'HTML')]);

    telegram.failNext('editMessageText', { status: 400, description: "Bad Request: can't parse entities: Unexpected end tag" });
    await adapter.edit(dm, ids[0]!, { text: '**Short** now' });
    expect(telegram.messages(42)[0]!.text).toBe('Short now');
    expect(telegram.callsOf('editMessageText').map((call) => call.params.parse_mode ?? 'plain')).toEqual(['HTML', 'plain']);
  });

  it('treats an edit to identical content as done', async () => {
    const { telegram, adapter } = await start();
    const { ids } = await adapter.send(dm, { text: 'same' });
    await adapter.edit(dm, ids[0]!, { text: 'same' });
    expect(telegram.callsOf('editMessageText')[0]!.status).toBe(400);
    await expect(adapter.edit(dm, '999', { text: 'gone' })).rejects.toMatchObject({ retryable: false });
  });

  it('waits out a 429 for its retry_after and sends', async () => {
    const { telegram, adapter } = await start();
    telegram.failNext('sendMessage', { status: 429, retryAfter: 1 });
    const { ids } = await adapter.send(dm, { text: 'after the flood wait' });
    expect(telegram.callsOf('sendMessage').map((call) => call.status)).toEqual([429, 200]);
    expect(telegram.messages(42).map((message) => String(message.messageId))).toEqual(ids);
  });

  it('sleeps exactly the retry_after, a bounded number of times, then gives up with retryAfterMs', async () => {
    const waits: number[] = [];
    const { telegram, adapter } = await start({ retry: { attempts: 3, sleep: async (ms) => void waits.push(ms) } });
    telegram.failNext('sendMessage', { status: 429, retryAfter: 2, times: 5 });
    const error = await failure(adapter.send(dm, { text: 'flooded' }));
    expect(waits).toEqual([2000, 2000]);
    expect(telegram.callsOf('sendMessage')).toHaveLength(3);
    expect(error).toMatchObject({ retryable: true, retryAfterMs: 2000 });
    expect(telegram.messages(42)).toEqual([]);
  });

  it('does not wait in place for a retry_after beyond the longest allowed wait', async () => {
    const waits: number[] = [];
    const { telegram, adapter } = await start({ retry: { maxWaitMs: 10_000, sleep: async (ms) => void waits.push(ms) } });
    telegram.failNext('sendChatAction', { status: 429, retryAfter: 120 });
    const error = await failure(adapter.typing(dm));
    expect(waits).toEqual([]);
    expect(error.retryAfterMs).toBe(120_000);
  });

  it('tries a typing indicator once: a 429 fails at once, even with a short retry_after, and is still reported', async () => {
    const waits: number[] = [];
    const limited: number[] = [];
    const { telegram, adapter } = await start({ retry: { attempts: 3, sleep: async (ms) => void waits.push(ms), onRateLimited: (ms) => void limited.push(ms) } });
    telegram.failNext('sendChatAction', { status: 429, retryAfter: 1 });
    const error = await failure(adapter.typing(dm));
    expect(waits).toEqual([]);
    expect(limited).toEqual([1000]);
    expect(telegram.callsOf('sendChatAction')).toHaveLength(1);
    expect(error).toMatchObject({ retryable: true, retryAfterMs: 1000 });
    // A message in the same state is still waited out and sent.
    telegram.failNext('sendMessage', { status: 429, retryAfter: 1 });
    await adapter.send(dm, { text: 'still sent' });
    expect(waits).toEqual([1000]);
    expect(telegram.messages(42).map((message) => message.text)).toEqual(['still sent']);
  });

  it('classifies failures: other 4xx final, 5xx and network retryable', async () => {
    const { telegram, adapter } = await start();
    telegram.failNext('sendMessage', { status: 403, description: 'Forbidden: bot was blocked by the user' });
    const blocked = await failure(adapter.send(dm, { text: 'hello' }));
    expect(blocked).toMatchObject({ retryable: false, retryAfterMs: undefined });
    expect(blocked.message).toContain('Forbidden: bot was blocked by the user');

    telegram.failNext('sendMessage', { status: 502 });
    expect(await failure(adapter.send(dm, { text: 'hello' }))).toMatchObject({ retryable: true });

    telegram.failNext('sendMessage', { dropConnection: true });
    const network = await failure(adapter.send(dm, { text: 'hello' }));
    expect(network.retryable).toBe(true);
    expect(telegram.callsOf('sendMessage')).toHaveLength(3);
  });

  it('reports the parts a long message delivered before failing, and a retry sends only the rest', async () => {
    const { telegram, adapter } = await start();
    const long = Array.from({ length: 3 }, (_, index) => `**Part ${index}** ${'word '.repeat(900)}`).join('\n\n');
    const whole = await adapter.send(dm, { text: long });
    const parts = telegram.messages(42).map((message) => message.text);
    expect(parts.length).toBeGreaterThan(2);
    let calls = 0;
    telegram.failNext('sendMessage', { status: 502, when: () => ++calls === 2 });
    const error = await failure(adapter.send(dm, { text: long }));
    expect(error.retryable).toBe(true);
    expect(error.delivered).toHaveLength(1);
    const { ids } = await adapter.send(dm, { text: long, skipParts: error.delivered.length });
    const again = telegram.messages(42).slice(whole.ids.length);
    expect(again.map((message) => message.text)).toEqual(parts);
    expect([...error.delivered, ...ids]).toEqual(again.map((message) => String(message.messageId)));
  });

  it('sends the first part anew when the message it should replace cannot be edited', async () => {
    const { telegram, adapter, logs } = await start();
    const { ids } = await adapter.send(dm, { text: 'preview …' });
    telegram.failNext('editMessageText', { status: 400, description: 'Bad Request: message to edit not found' });
    const result = await adapter.send(dm, { text: 'The final answer.', replace: ids[0] });
    expect(result.ids).toHaveLength(1);
    expect(result.ids[0]).not.toBe(ids[0]);
    expect(telegram.messages(42).map((message) => message.text)).toEqual(['preview …', 'The final answer.']);
    expect(logs.some((line) => line.includes('could not be edited'))).toBe(true);

    telegram.failNext('editMessageText', { status: 502 });
    expect(await failure(adapter.send(dm, { text: 'Another answer.', replace: result.ids[0] }))).toMatchObject({ retryable: true });
  });

  it('refuses to send an empty message', async () => {
    const { telegram, adapter } = await start();
    expect(await failure(adapter.send(dm, { text: '  \n ' }))).toMatchObject({ retryable: false });
    expect(telegram.callsOf('sendMessage')).toEqual([]);
  });

  it('registers the command menu with setMyCommands, - written _', async () => {
    const { telegram, adapter, logs } = await start();
    await adapter.setCommands!([
      { name: 'help', description: 'Show help' },
      { name: 'Model', description: 'Choose the model' },
      { name: 'deploy-app', description: 'A skill: - becomes _' },
      { name: 'not valid!', description: 'Left out' },
    ]);
    expect(telegram.commands).toEqual([
      { command: 'help', description: 'Show help' },
      { command: 'model', description: 'Choose the model' },
      { command: 'deploy_app', description: 'A skill: - becomes _' },
    ]);
    expect(logs.some((line) => line.includes('not valid!'))).toBe(true);
  });

  it('puts buttons on the last chunk and the reply on the first', async () => {
    const { telegram, adapter } = await start();
    const long = `${'first part. '.repeat(300)}\n\n${'second part. '.repeat(300)}`;
    const { ids } = await adapter.send(dm, { text: long, replyTo: '1', buttons: [[{ label: 'OK', data: 'ok' }]] });
    expect(ids).toHaveLength(2);
    const [first, second] = telegram.callsOf('sendMessage');
    expect(first!.params.reply_parameters).toEqual({ message_id: 1, allow_sending_without_reply: true });
    expect(first!.params.reply_markup).toBeUndefined();
    expect(second!.params.reply_parameters).toBeUndefined();
    expect(second!.params.reply_markup).toEqual({ inline_keyboard: [[{ text: 'OK', callback_data: 'ok' }]] });
  });
});
