/**
 * The fake Discord's Interactions Endpoint side: interactions signed with the application's
 * Ed25519 key (checked here with Node's own verifier against the public key in hex), and an
 * endpoint's HTTP answer taken as the interaction's response, after which the interaction's
 * webhook routes (edit @original, follow-ups) work as after a callback POST.
 */
import { createPublicKey, verify } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeDiscordServer, type FakeDiscord } from './fake-discord-server.ts';

let discord: FakeDiscord;

beforeEach(async () => {
  discord = await startFakeDiscordServer();
});

afterEach(async () => {
  await discord.close();
});

/** Whether `signed` verifies against the public key given as hex, as an endpoint checks it. */
function verifies(publicKeyHex: string, signed: { body: string; headers: Record<string, string> }): boolean {
  const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKeyHex, 'hex').toString('base64url') }, format: 'jwk' });
  const message = Buffer.from(signed.headers['x-signature-timestamp']! + signed.body);
  return verify(null, message, key, Buffer.from(signed.headers['x-signature-ed25519']!, 'hex'));
}

async function webhook(method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(`${discord.apiUrl}/v10${path}`, { method, headers: { 'content-type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

describe('fake Discord Interactions Endpoint', () => {
  it('signs an interaction with the application key, over the timestamp and the raw body', () => {
    expect(discord.publicKey).toMatch(/^[0-9a-f]{64}$/);
    const { payload } = discord.slashCommand({ channelId: discord.world.channelId, name: 'ask', args: 'hi' });
    const signed = discord.signedInteraction(payload, { timestampSeconds: 1_700_000_000 });
    expect(JSON.parse(signed.body)).toEqual(payload);
    expect(signed.headers['x-signature-timestamp']).toBe('1700000000');
    expect(verifies(discord.publicKey, signed)).toBe(true);
    expect(verifies(discord.publicKey, { ...signed, body: signed.body.replace('hi', 'ho') })).toBe(false);
    expect(verifies(discord.publicKey, discord.signedInteraction(payload, { forged: true }))).toBe(false);
  });

  it('takes a deferred answer as the response: @original exists, is edited and followed up', async () => {
    const { payload } = discord.slashCommand({ channelId: discord.world.channelId, name: 'ask', args: 'hi' });
    const { id, token } = payload as { id: string; token: string };
    discord.endpointAnswered(id, { type: 5 });
    expect(discord.callbacks.at(-1)).toMatchObject({ interactionId: id, type: 5 });
    const original = discord.botMessages(discord.world.channelId).at(-1)!;
    expect(original.message.flags! & 128).toBe(128);

    const edited = await webhook('PATCH', `/webhooks/${discord.applicationId}/${token}/messages/@original`, { content: 'the answer' });
    expect(edited).toMatchObject({ status: 200, json: { id: original.message.id, content: 'the answer' } });
    expect(discord.message(original.message.id)!.message.flags! & 128).toBe(0);
    const followUp = await webhook('POST', `/webhooks/${discord.applicationId}/${token}?wait=true`, { content: 'part two' });
    expect(followUp.status).toBe(200);
    expect(discord.botMessages(discord.world.channelId).slice(-2).map((stored) => stored.message.content)).toEqual(['the answer', 'part two']);
  });

  it('refuses a second response, and knows no interaction it did not send', () => {
    const { payload } = discord.buttonPress({ channelId: discord.world.channelId, messageId: discord.messageCreate({ channelId: discord.world.channelId, content: 'x' }).payload.id, customId: 'b' });
    const { id } = payload as { id: string };
    discord.endpointAnswered(id, { type: 6 });
    expect(() => discord.endpointAnswered(id, { type: 6 })).toThrow(/already been acknowledged/);
    expect(() => discord.endpointAnswered('1', { type: 5 })).toThrow(/no interaction 1/);
  });
});
