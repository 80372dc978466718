/**
 * The fake Discord's multipart create-message requests, driven by discord.js's REST `files`
 * option and by a plain form: files become the message's attachments (named by the body's
 * `attachments` where it names them), served back at their URL; over 10 MiB is a 413.
 */
import { DiscordAPIError, REST, Routes, type APIMessage } from 'discord.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
// discord.js's own undici, whatever another test file in the same worker loaded first.
import { discordAgent } from '../../src/channels/discord/own-agent.ts';
import { startFakeDiscordServer, type FakeDiscord } from './fake-discord-server.ts';

let discord: FakeDiscord;

beforeEach(async () => {
  discord = await startFakeDiscordServer();
});

afterEach(async () => {
  await discord.close();
});

function rest(): REST {
  return new REST({ api: discord.apiUrl, agent: discordAgent(), retries: 0, rejectOnRateLimit: () => true }).setToken(discord.token);
}

describe('fake Discord uploads', () => {
  it('stores the files of a multipart message as its attachments and serves their bytes', async () => {
    const channelId = discord.world.channelId;
    const files = [
      { name: 'part.bin', data: Buffer.from([0, 1, 2, 255]), contentType: 'application/octet-stream' },
      { name: 'second.txt', data: Buffer.from('two'), contentType: 'text/plain' },
    ];
    const body = { content: '', attachments: [{ id: 0, filename: 'renamed.bin' }], allowed_mentions: { parse: [] } };
    const message = (await rest().post(Routes.channelMessages(channelId), { body, files })) as APIMessage;
    expect(message.attachments.map((attachment) => [attachment.filename, attachment.size, attachment.content_type])).toEqual([
      ['renamed.bin', 4, 'application/octet-stream'],
      ['second.txt', 3, 'text/plain'],
    ]);
    const downloaded = await fetch(message.attachments[0]!.url);
    expect([...new Uint8Array(await downloaded.arrayBuffer())]).toEqual([0, 1, 2, 255]);
    expect(discord.callsOf('createMessage')[0]!.body).toEqual(body);
    expect(discord.message(message.id)?.allowedMentions).toEqual({ parse: [] });
  });

  it('takes a form without payload_json as a message of files alone, and refuses a file over 10 MiB', async () => {
    const form = new FormData();
    form.append('files[0]', new Blob(['hello'], { type: 'text/plain' }), 'hello.txt');
    const response = await fetch(`${discord.apiUrl}/v10/channels/${discord.world.channelId}/messages`, { method: 'POST', headers: { authorization: `Bot ${discord.token}` }, body: form });
    expect(response.status).toBe(200);
    expect(((await response.json()) as APIMessage).attachments[0]).toMatchObject({ filename: 'hello.txt', size: 5 });

    const big = { name: 'big.bin', data: Buffer.alloc(10 * 1024 * 1024 + 1) };
    const refused = await rest().post(Routes.channelMessages(discord.world.channelId), { body: {}, files: [big] }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(DiscordAPIError);
    expect(refused).toMatchObject({ status: 413, code: 40005 });
    expect(discord.botMessages(discord.world.channelId)).toHaveLength(1);
  });
});
