/**
 * Declining, revoking and the owner made by pairing, through the access policy (as the gateway
 * sees them) and the book (as `operator pairing` changes them), on one store.
 */
import { describe, expect, it } from 'vitest';
import type { InboundMessage } from '../../src/channels/types.ts';
import { createAccessPolicy, PairingBook, PairingError } from '../../src/gateway/access/index.ts';
import { loadConfig, type GatewayConfig } from '../../src/gateway/config/index.ts';
import { createStore } from '../../src/store/index.ts';

function config(changes: Partial<GatewayConfig> = {}): GatewayConfig {
  return { ...loadConfig({ OPERATOR_HOME: '/nonexistent-operator-home' }).config, ...changes };
}

function message(userId: string, options: { scope?: 'dm' | 'group'; platform?: string } = {}): InboundMessage {
  const platform = options.platform ?? 'telegram';
  const scope = options.scope ?? 'dm';
  const chatId = scope === 'dm' ? `dm-${userId}` : '-1001';
  return {
    id: '1',
    dedupeKey: `${platform}:update:1`,
    sessionKey: `${platform}:${scope}:${chatId}`,
    address: { platform, conversationId: chatId },
    scope,
    sender: { id: userId, name: `User ${userId}` },
    text: 'hello',
    attachments: [],
    mentioned: true,
    receivedAt: 0,
    raw: null,
  };
}

function codeOf(decision: { allowed: boolean; reply?: string }): string {
  const code = /\n\n([A-Z0-9]{8})\n\n/.exec(decision.reply ?? '')?.[1];
  if (!code) throw new Error(`no code in ${JSON.stringify(decision)}`);
  return code;
}

const start = Date.UTC(2026, 0, 1, 12, 0, 0);

function setup(changes: Partial<GatewayConfig> = {}) {
  let now = start;
  const clock = { now: () => now, advance: (ms: number) => (now += ms) };
  const store = createStore({ driver: 'memory', now: clock.now });
  // The gateway's policy and the command line's book: two views of one store, as in two processes.
  return { clock, store, access: createAccessPolicy(config(changes), store, { now: clock.now }), book: new PairingBook(store, { now: clock.now }) };
}

describe('pairing: approving', () => {
  it('leaves a notice addressed to the conversation the code was asked in', async () => {
    const { access, store } = setup();
    const code = codeOf(await access.check(message('42')));
    await access.approvePairing(code);
    expect(await store.get('pairing:notice:telegram:42')).toEqual({
      platform: 'telegram',
      userId: '42',
      address: { platform: 'telegram', conversationId: 'dm-42' },
      createdAt: start,
      expiresAt: start + 7 * 86_400_000,
      attempts: 0,
    });
  });
});

describe('pairing: declining', () => {
  it('drops the code and refuses the person for a day, telling them so, then gives a new code', async () => {
    const { access, book, clock } = setup();
    const code = codeOf(await access.check(message('42')));
    const denied = await book.deny(code.toLowerCase());
    expect(denied).toMatchObject({ platform: 'telegram', userId: '42', code, deniedAt: start, until: start + 86_400_000 });
    await expect(access.approvePairing(code)).rejects.toThrow(`Unknown pairing code ${code}`);
    expect(await access.check(message('42'))).toEqual({
      allowed: false,
      reason: 'declined by an admin',
      reply: 'Sorry, an admin of this bot declined your request to talk with me. You can ask for a new pairing code in 24 hours.',
    });
    clock.advance(23.5 * 3_600_000);
    expect(await access.check(message('42'))).toHaveProperty('reply', expect.stringContaining('in 30 minutes.'));
    expect((await book.list()).denied.map((person) => person.userId)).toEqual(['42']);
    clock.advance(31 * 60_000);
    expect(codeOf(await access.check(message('42')))).not.toBe(code);
    expect((await book.list()).denied).toEqual([]);
  });

  it('turns down only the person of the code; unknown and malformed codes are errors', async () => {
    const { access, book } = setup();
    const code = codeOf(await access.check(message('1')));
    codeOf(await access.check(message('2')));
    await book.deny(code);
    expect((await book.list()).pending.map((request) => request.userId)).toEqual(['2']);
    await expect(book.deny(code)).rejects.toThrow(new PairingError(`Unknown pairing code ${code}: check it, or ask the person to write to the bot again for a new one`));
    await expect(book.deny('nope')).rejects.toBeInstanceOf(PairingError);
  });
});

describe('pairing: revoking', () => {
  it("makes an approved person a stranger again at once, though another view approved them", async () => {
    const { access, book } = setup();
    await book.approve(codeOf(await access.check(message('42'))));
    expect(await access.check(message('42'))).toEqual({ allowed: true, admin: false });
    expect(await book.revoke('telegram', '42')).toMatchObject({ person: { platform: 'telegram', userId: '42' }, owner: false });
    const decision = await access.check(message('42'));
    expect(decision.allowed).toBe(false);
    codeOf(decision);
    await expect(book.revoke('telegram', '42')).rejects.toThrow(new PairingError('telegram:42 is not paired (operator pairing list shows who is)'));
  });

  it('drops a notice not yet sent, so a revoked person is never told they may write', async () => {
    const { access, book, store } = setup();
    await book.approve(codeOf(await access.check(message('42'))));
    await book.revoke('telegram', '42');
    expect(await store.list('pairing:notice:')).toEqual([]);
  });
});

describe('pairing: the owner', () => {
  it('makes the owner an admin everywhere, read from the store by every check', async () => {
    const { access, book } = setup();
    const code = codeOf(await access.check(message('42')));
    expect(access.isAdmin('telegram', '42')).toBe(false);
    await book.approve(code, { owner: true });
    expect(await access.check(message('42'))).toEqual({ allowed: true, admin: true });
    expect(await access.check(message('42', { scope: 'group' }))).toEqual({ allowed: true, admin: true });
    expect(access.isAdmin('telegram', '42')).toBe(true);
    expect((await book.list()).owner).toMatchObject({ platform: 'telegram', userId: '42' });
    // The same id elsewhere is someone else.
    expect(access.isAdmin('discord', '42')).toBe(false);
  });

  it('is made once: a second owner is refused and that code stays waiting', async () => {
    const { access, book } = setup();
    await book.approve(codeOf(await access.check(message('1'))), { owner: true });
    const second = codeOf(await access.check(message('2')));
    await expect(book.approve(second, { owner: true })).rejects.toThrow(
      'This bot already has an owner (telegram:1); add more admins to admins in operator.json (or OPERATOR_ADMINS)',
    );
    expect((await book.list()).pending.map((request) => request.code)).toEqual([second]);
    expect((await access.check(message('2'))).allowed).toBe(false);
  });

  it('is never made by an approval from the chat', async () => {
    const { access } = setup();
    await access.approvePairing(codeOf(await access.check(message('42'))));
    expect(await access.check(message('42'))).toEqual({ allowed: true, admin: false });
    expect(access.isAdmin('telegram', '42')).toBe(false);
  });

  it('stops being one when revoked, and the policy sees it on its next refresh', async () => {
    const { access, book } = setup();
    await book.approve(codeOf(await access.check(message('42'))), { owner: true });
    expect(await access.check(message('42'))).toEqual({ allowed: true, admin: true });
    expect(await book.revoke('telegram', '42')).toMatchObject({ owner: true });
    expect(access.isAdmin('telegram', '42')).toBe(true);
    await access.refresh();
    expect(access.isAdmin('telegram', '42')).toBe(false);
    expect((await access.check(message('42'))).allowed).toBe(false);
  });
});
