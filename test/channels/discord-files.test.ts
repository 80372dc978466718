/**
 * Discord files out: each file a message of its own after the text (a multipart create-message
 * request with `payload_json` and `files[0]`), no pings, the limit refused before any upload,
 * partial sends reported as parts and retried without repeats, unreadable files, upload failures.
 */
import { createRequire } from 'node:module';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConversationAddress } from '../../src/channels/types.ts';
import { deliveryFailure } from './delivery-failure.ts';
import { sentFilesOf, startDiscordHarness, type DiscordHarness } from './discord-harness.ts';
import { binaryBytes, missingFile, sizedFile, textBytes, writeOutboundFiles } from './outbound-files.ts';

let harness: DiscordHarness;
let thread: ConversationAddress;

async function start(): Promise<DiscordHarness> {
  harness = await startDiscordHarness({ where: 'thread' });
  thread = harness.address;
  await harness.adapter.start({ onMessage: async () => {}, onAction: async () => {} });
  return harness;
}

/** The bot's messages in the thread, oldest first, each as its file names (or its text when it has none). */
function threadParts(): string[] {
  return harness.discord.botMessages(thread.threadId!).map((stored) => stored.message.attachments.map((attachment) => attachment.filename).join(',') || stored.message.content);
}

const twoFiles = () =>
  writeOutboundFiles([
    { name: 'report.txt', bytes: textBytes('the report\n'), mediaType: 'text/plain' },
    { name: 'chart.png', bytes: binaryBytes(2048), mediaType: 'image/png' },
  ]);

afterEach(async () => {
  await harness.adapter.stop();
  await harness.close();
});

/**
 * Makes the process-wide HTTP dispatcher one of the undici that Slack's Socket Mode brings (a newer
 * major version than discord.js's), as when that code loads first in the gateway; undone after `run`.
 */
async function withSlacksDispatcher(run: () => Promise<void>): Promise<void> {
  const slacks = createRequire(createRequire(import.meta.url).resolve('@slack/socket-mode'))('undici') as { Agent: new () => object; getGlobalDispatcher(): object; setGlobalDispatcher(agent: object): void };
  const before = slacks.getGlobalDispatcher();
  slacks.setGlobalDispatcher(new slacks.Agent());
  try {
    await run();
  } finally {
    slacks.setGlobalDispatcher(before);
  }
}

describe('discord files out', () => {
  it("sends files whichever undici made the process-wide dispatcher (Slack's Socket Mode loaded first)", async () => {
    const { adapter } = await start();
    const files = await twoFiles();
    // Without discord.js's own agent (src/channels/discord/own-agent.ts) this failed with "action is not a function".
    await withSlacksDispatcher(async () => {
      await adapter.send(thread, { text: 'With files', files });
    });
    expect(threadParts()).toEqual(['With files', 'report.txt', 'chart.png']);
  });

  it('sends the text, then each file as a message of its own in the thread, pinging nobody', async () => {
    const { discord, adapter } = await start();
    const files = await twoFiles();
    const { ids } = await adapter.send(thread, { text: 'Here you go <@123> @everyone', files });
    const stored = discord.botMessages(thread.threadId!);
    expect(stored.map((message) => message.message.id)).toEqual(ids);
    expect(threadParts()).toEqual(['Here you go <@123> @everyone', 'report.txt', 'chart.png']);
    expect(stored.map((message) => message.allowedMentions)).toEqual([{ parse: [] }, { parse: [] }, { parse: [] }]);
    expect(stored[1]!.message).toMatchObject({ content: '', attachments: [{ filename: 'report.txt', size: 11, content_type: 'text/plain' }] });
    expect(stored[2]!.message.attachments[0]).toMatchObject({ filename: 'chart.png', size: 2048, content_type: 'image/png' });
    const arrived = await sentFilesOf(discord, thread.threadId!);
    expect(arrived.map((file) => [file.name, [...file.bytes]])).toEqual([
      ['report.txt', [...textBytes('the report\n')]],
      ['chart.png', [...binaryBytes(2048)]],
    ]);
    expect(discord.callsOf('createMessage').map((call) => call.body)).toContainEqual({ allowed_mentions: { parse: [] }, components: [], attachments: [{ id: 0, filename: 'report.txt' }] });
  });

  it('sends files alone when the text is empty: the first file replies, the last carries the buttons', async () => {
    const { discord, adapter } = await start();
    const replyTo = discord.messageCreate({ channelId: thread.threadId!, content: 'send me the files' }).payload.id;
    const files = await twoFiles();
    const buttons = [[{ label: 'Thanks', data: 'thanks' }]];
    const { ids } = await adapter.send(thread, { text: '', files, replyTo, buttons });
    expect(ids).toHaveLength(2);
    expect(threadParts()).toEqual(['report.txt', 'chart.png']);
    const [first, last] = ids.map((id) => discord.message(id)!.message);
    expect(first).toMatchObject({ type: 19, message_reference: { message_id: replyTo }, components: [] });
    expect(last!.components).toEqual([{ type: 1, components: [{ type: 2, style: 2, label: 'Thanks', custom_id: 'thanks' }] }]);
  });

  it('refuses a file over 10 MiB before uploading it, naming the file and the limit, with the text parts delivered', async () => {
    const { discord, adapter } = await start();
    const [small] = await twoFiles();
    const big = await sizedFile('huge.zip', 10 * 1024 * 1024 + 1);
    const error = await deliveryFailure(adapter.send(thread, { text: 'Two files', files: [small!, big] }));
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('huge.zip');
    expect(error.message).toContain('10,485,760');
    const [text, file] = discord.botMessages(thread.threadId!).map((stored) => stored.message.id);
    expect(error.delivered).toEqual([text, file]);
    expect(discord.callsOf('createMessage')).toHaveLength(2);
  });

  it('reports an upload failure as its kind (5xx retryable, 4xx final); a retry sends only what did not arrive', async () => {
    const { discord, adapter } = await start();
    const files = await twoFiles();
    discord.failNext('createMessage', { status: 500, when: (body) => JSON.stringify(body).includes('chart.png') });
    const error = await deliveryFailure(adapter.send(thread, { text: 'The files', files }));
    expect(error.retryable).toBe(true);
    expect(error.delivered).toHaveLength(2);
    expect(`${error.message} ${String(error.cause)}`).not.toContain(discord.token);
    const retry = await adapter.send(thread, { text: 'The files', files, skipParts: error.delivered.length });
    expect(retry.ids).toHaveLength(1);
    expect(threadParts()).toEqual(['The files', 'report.txt', 'chart.png']);

    discord.failNext('createMessage', { status: 403, code: 50013, message: 'Missing Permissions', when: (body) => JSON.stringify(body).includes('report.txt') });
    const refused = await deliveryFailure(adapter.send(thread, { text: '', files }));
    expect(refused).toMatchObject({ retryable: false, delivered: [] });
    expect(refused.message).toBe('Discord createMessage failed: 403 Missing Permissions (code 50013)');
  });

  it('refuses a file that cannot be read with a final error naming it', async () => {
    const { discord, adapter } = await start();
    const gone = await missingFile('gone.txt');
    const error = await deliveryFailure(adapter.send(thread, { text: 'Attached', files: [gone] }));
    expect(error.retryable).toBe(false);
    expect(error.message).toMatch(/^Discord: file gone\.txt could not be read/);
    expect(error.delivered).toEqual(discord.botMessages(thread.threadId!).map((stored) => stored.message.id));
    expect(error.delivered).toHaveLength(1);
  });
});
