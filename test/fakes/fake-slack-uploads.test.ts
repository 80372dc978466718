/**
 * The fake Slack's external file upload, driven by plain HTTP as Slack documents it (raw bytes to
 * the upload URL) and by the WebClient's `filesUploadV2` (a form): the argument checks and their
 * errors, completion only of uploads whose bytes arrived, shares into a channel or thread, and
 * the shared file behind the bot token.
 */
import { webApi } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeSlackServer, type FakeSlack } from './fake-slack-server.ts';

let slack: FakeSlack;

beforeEach(async () => {
  slack = await startFakeSlackServer();
});

afterEach(async () => {
  await slack.close();
});

async function method(name: string, params: Record<string, string>): Promise<Record<string, unknown>> {
  const response = await fetch(`${slack.apiUrl}${name}`, { method: 'POST', headers: { authorization: `Bearer ${slack.bot.token}` }, body: new URLSearchParams(params) });
  return (await response.json()) as Record<string, unknown>;
}

describe('fake Slack uploads', () => {
  it('takes raw bytes at the upload URL and shares them only once completed', async () => {
    expect(await method('files.getUploadURLExternal', { filename: 'empty.txt', length: '0' })).toEqual({ ok: false, error: 'missing_argument' });
    expect(await method('files.getUploadURLExternal', { length: '3' })).toEqual({ ok: false, error: 'invalid_arguments' });
    const begun = await method('files.getUploadURLExternal', { filename: 'abc.txt', length: '3' });
    const uploadUrl = String(begun.upload_url);
    expect(uploadUrl.startsWith(slack.origin)).toBe(true);
    const files = JSON.stringify([{ id: begun.file_id, title: 'ABC' }]);
    expect(await method('files.completeUploadExternal', { files, channel_id: 'C0GENERAL' })).toEqual({ ok: false, error: 'file_not_found' });

    const uploaded = await fetch(uploadUrl, { method: 'POST', headers: { 'content-type': 'application/octet-stream' }, body: 'abc' });
    expect([uploaded.status, await uploaded.text()]).toEqual([200, 'OK - 3']);
    expect(await method('files.completeUploadExternal', { files, channel_id: 'not a channel' })).toEqual({ ok: false, error: 'channel_not_found' });
    const completed = await method('files.completeUploadExternal', { files, channel_id: 'C0GENERAL', thread_ts: '1760000001.000001' });
    expect(completed).toMatchObject({ ok: true, files: [{ id: begun.file_id, name: 'abc.txt', title: 'ABC', size: 3 }] });
    expect(slack.sharedFiles('C0GENERAL', '1760000001.000001').map((file) => [file.name, Buffer.from(file.bytes).toString()])).toEqual([['abc.txt', 'abc']]);
    expect(slack.sharedFiles('C0GENERAL', null)).toEqual([]);
    expect(await method('files.completeUploadExternal', { files, channel_id: 'C0GENERAL' })).toEqual({ ok: false, error: 'file_not_found' });
    expect((await fetch(uploadUrl, { method: 'POST', body: 'again' })).status).toBe(404);

    const privateUrl = String((completed.files as { url_private_download: string }[])[0]!.url_private_download);
    const download = await fetch(privateUrl, { headers: { authorization: `Bearer ${slack.bot.token}` } });
    expect(await download.text()).toBe('abc');
  });

  it('shares a file uploaded by the WebClient as a form, and fails the upload URL on request', async () => {
    const client = new webApi.WebClient(slack.bot.token, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 }, logLevel: webApi.LogLevel.ERROR });
    const result = await client.filesUploadV2({ channel_id: 'D0DIRECT1', file: Buffer.from([9, 8, 7]), filename: 'bytes.bin' });
    expect(result.files[0]?.files?.[0]).toMatchObject({ name: 'bytes.bin', size: 3 });
    expect(slack.sharedFiles('D0DIRECT1').map((file) => [...file.bytes])).toEqual([[9, 8, 7]]);

    slack.failNext('upload_url', { status: 503 });
    const failed = await client.filesUploadV2({ channel_id: 'D0DIRECT1', file: Buffer.from('x'), filename: 'x.txt' }).catch((error: unknown) => error);
    expect(failed).toMatchObject({ code: webApi.ErrorCode.HTTPError, statusCode: 503 });
    expect(slack.callsOf('upload_url').map((call) => call.status)).toEqual([200, 503]);
    expect(slack.sharedFiles('D0DIRECT1')).toHaveLength(1);
  });
});
