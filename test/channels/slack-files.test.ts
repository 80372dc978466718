/**
 * Slack files out: each file shared after the text through the WebClient's `filesUploadV2`
 * (`files.getUploadURLExternal`, the bytes to the `upload_url`, `files.completeUploadExternal`
 * with `channel_id` and `thread_ts`), the file id as the part id, the limit refused before any
 * call, partial sends reported as parts and retried without repeats, unreadable files, and upload
 * failures classified by kind without the token in them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ConversationAddress } from '../../src/channels/types.ts';
import { deliveryFailure } from './delivery-failure.ts';
import { binaryBytes, missingFile, sizedFile, textBytes, writeOutboundFiles } from './outbound-files.ts';
import { startSlackHarness, type SlackHarness } from './slack-harness.ts';

const channel: ConversationAddress = { platform: 'slack', conversationId: 'C0GENERAL' };
let harness: SlackHarness;

async function start(address: ConversationAddress = channel): Promise<SlackHarness> {
  harness = await startSlackHarness({ address });
  await harness.adapter.start({ onMessage: async () => {}, onAction: async () => {} });
  return harness;
}

const twoFiles = () =>
  writeOutboundFiles([
    { name: 'report.txt', bytes: textBytes('the report\n'), mediaType: 'text/plain' },
    { name: 'chart.png', bytes: binaryBytes(2048), mediaType: 'image/png' },
  ]);

/** The names of the files shared into `address` (its thread, or top-level), oldest first. */
function sharedNames(address: ConversationAddress): string[] {
  return harness.slack.sharedFiles(address.conversationId, address.threadId ?? null).map((file) => file.name);
}

afterEach(async () => {
  await harness.adapter.stop();
  await harness.close();
});

describe('slack files out', () => {
  it('sends the text, then shares each file into the thread, in order, the file ids as part ids', async () => {
    const { slack, adapter, address } = await start({ ...channel, threadId: 'new' });
    const files = await twoFiles();
    const { ids } = await adapter.send(address, { text: 'Here you go', files });
    const [message] = slack.botMessages(address.conversationId, address.threadId!);
    const shared = slack.sharedFiles(address.conversationId, address.threadId!);
    expect(ids).toEqual([message!.ts, ...shared.map((file) => file.id)]);
    expect(shared.map((file) => [file.name, [...file.bytes]])).toEqual([
      ['report.txt', [...textBytes('the report\n')]],
      ['chart.png', [...binaryBytes(2048)]],
    ]);
    expect(shared.map((file) => file.ts).every((ts) => Number(ts) > Number(message!.ts))).toBe(true);
    expect(Number(shared[1]!.ts)).toBeGreaterThan(Number(shared[0]!.ts));
    expect(slack.calls.map((call) => call.method).filter((method) => method !== 'auth.test')).toEqual([
      'chat.postMessage',
      ...['report.txt', 'chart.png'].flatMap(() => ['files.getUploadURLExternal', 'upload_url', 'files.completeUploadExternal']),
    ]);
    expect(slack.callsOf('files.getUploadURLExternal')[0]!.params).toMatchObject({ filename: 'report.txt', length: '11' });
    expect(slack.callsOf('files.completeUploadExternal')[0]!.params).toMatchObject({ channel_id: 'C0GENERAL', thread_ts: address.threadId });
    expect(sharedNames({ ...channel })).toEqual([]);
  });

  it('shares files alone when the text is empty, leaving out buttons a file cannot carry', async () => {
    const { slack, adapter, logs } = await start();
    const files = await twoFiles();
    const { ids } = await adapter.send(channel, { text: '', files, buttons: [[{ label: 'Thanks', data: 'thanks' }]] });
    expect(ids).toEqual(slack.sharedFiles('C0GENERAL', null).map((file) => file.id));
    expect(sharedNames(channel)).toEqual(['report.txt', 'chart.png']);
    expect(slack.callsOf('chat.postMessage')).toEqual([]);
    expect(slack.callsOf('files.completeUploadExternal')[0]!.params.thread_ts).toBeUndefined();
    expect(logs.some((line) => line.includes('buttons left out'))).toBe(true);
  });

  it('refuses a file over 1 GiB before uploading it, naming the file and the limit, with the text parts delivered', async () => {
    const { slack, adapter } = await start();
    const big = await sizedFile('disk.img', 1024 * 1024 * 1024 + 1);
    const error = await deliveryFailure(adapter.send(channel, { text: 'The image', files: [big] }));
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('disk.img');
    expect(error.message).toContain('1,073,741,824');
    expect(error.delivered).toEqual(slack.botMessages('C0GENERAL').map((message) => message.ts));
    expect(error.delivered).toHaveLength(1);
    expect(slack.callsOf('files.getUploadURLExternal')).toEqual([]);
  });

  it('reports a failed upload as retryable (5xx) with the parts delivered; a retry shares only the rest', async () => {
    const { slack, adapter } = await start();
    const files = await twoFiles();
    slack.failNext('upload_url', { status: 500, when: (params) => params.filename === 'chart.png' });
    const error = await deliveryFailure(adapter.send(channel, { text: 'The files', files }));
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('HTTP 500');
    expect(error.delivered).toHaveLength(2);
    const retry = await adapter.send(channel, { text: 'The files', files, skipParts: error.delivered.length });
    expect(retry.ids).toHaveLength(1);
    expect(slack.botMessages('C0GENERAL')).toHaveLength(1);
    expect(sharedNames(channel)).toEqual(['report.txt', 'chart.png']);
  });

  it('reports ok:false refusals as final and Slack\'s transient errors as retryable, never with the token', async () => {
    const { slack, adapter } = await start();
    const [file] = await twoFiles();
    const nowhere = { platform: 'slack', conversationId: 'not-a-channel' };
    const missing = await deliveryFailure(adapter.send(nowhere, { text: '', files: [file!] }));
    expect(missing).toMatchObject({ retryable: false, message: 'Slack files.uploadV2 failed: channel_not_found', delivered: [] });

    slack.failNext('files.getUploadURLExternal', { error: 'invalid_auth' });
    const unauthorised = await deliveryFailure(adapter.send(channel, { text: '', files: [file!] }));
    expect(unauthorised).toMatchObject({ retryable: false, message: 'Slack files.uploadV2 failed: invalid_auth' });
    expect(`${unauthorised.message} ${String(unauthorised.cause)}`).not.toContain(slack.bot.token);

    slack.failNext('files.completeUploadExternal', { error: 'internal_error' });
    expect(await deliveryFailure(adapter.send(channel, { text: '', files: [file!] }))).toMatchObject({ retryable: true });
    expect(sharedNames(channel)).toEqual([]);
  });

  it('refuses a file that cannot be read with a final error naming it', async () => {
    const { slack, adapter } = await start();
    const error = await deliveryFailure(adapter.send(channel, { text: 'Attached', files: [await missingFile('gone.txt')] }));
    expect(error.retryable).toBe(false);
    expect(error.message).toMatch(/^Slack: file gone\.txt could not be read/);
    expect(error.delivered).toEqual(slack.botMessages('C0GENERAL').map((message) => message.ts));
    expect(slack.callsOf('files.getUploadURLExternal')).toEqual([]);
  });
});
