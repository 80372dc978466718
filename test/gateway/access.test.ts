import { describe, expect, it } from 'vitest';
import type { InboundMessage } from '../../src/channels/types.ts';
import { createAccessPolicy, PairingError, pairingAlphabet } from '../../src/gateway/access/index.ts';
import { loadConfig, type GatewayConfig } from '../../src/gateway/config/index.ts';
import { createStore } from '../../src/store/index.ts';

/** The default configuration with `changes`. */
function config(changes: Partial<GatewayConfig> = {}): GatewayConfig {
  return { ...loadConfig({ OPERATOR_HOME: '/nonexistent-operator-home' }).config, ...changes };
}

function message(options: { platform?: string; scope?: 'dm' | 'group'; userId?: string; chatId?: string; name?: string; isBot?: boolean } = {}): InboundMessage {
  const platform = options.platform ?? 'telegram';
  const scope = options.scope ?? 'dm';
  const userId = options.userId ?? '42';
  const chatId = options.chatId ?? (scope === 'dm' ? userId : '-1001');
  return {
    id: '1',
    dedupeKey: `${platform}:update:1`,
    sessionKey: `${platform}:${scope}:${chatId}`,
    address: { platform, conversationId: chatId },
    scope,
    sender: { id: userId, name: options.name ?? 'Ada', username: 'ada', isBot: options.isBot },
    text: 'hello',
    attachments: [],
    mentioned: true,
    receivedAt: 0,
    raw: null,
  };
}

const allowed = { allowed: true, admin: false };

/** The listing's groups part when no group asked. */
const noGroups = { pending: [], approved: [], denied: [] };

/** Every platform's group policy `open`: groups as they were served before approval (see group-access.test.ts). */
const openGroups = { groupPolicy: { telegram: 'open', discord: 'open', slack: 'open' } } as const;

describe('access: admins', () => {
  it('always lets admins in, as admins, whatever the policy and allowlists', async () => {
    const access = createAccessPolicy(
      config({
        admins: ['telegram:1', 'slack:U9'],
        dmPolicy: { telegram: 'allowlist', discord: 'allowlist', slack: 'allowlist', web: 'allowlist' },
        allowlists: { ...config().allowlists, telegram: { chats: ['-5'], users: ['2'] } },
      }),
      createStore({ driver: 'memory' }),
    );
    expect(await access.check(message({ userId: '1' }))).toEqual({ allowed: true, admin: true });
    expect(await access.check(message({ userId: '1', scope: 'group', chatId: '-1001' }))).toEqual({ allowed: true, admin: true });
    expect(await access.check(message({ platform: 'slack', userId: 'U9' }))).toEqual({ allowed: true, admin: true });
    // The same id on another platform is someone else.
    expect((await access.check(message({ platform: 'discord', userId: '1' }))).allowed).toBe(false);
  });
});

describe('access: groups under groupPolicy open', () => {
  it('lets anyone in a group address the bot when nothing restricts it', async () => {
    const access = createAccessPolicy(config(openGroups), createStore({ driver: 'memory' }));
    expect(await access.check(message({ scope: 'group', userId: '7' }))).toEqual(allowed);
  });

  it('restricts groups by the allowlisted chats and people, silently', async () => {
    const access = createAccessPolicy(
      config({ ...openGroups, allowlists: { ...config().allowlists, telegram: { chats: ['-1001', '-1002'], users: [] }, discord: { chats: [], users: ['9'] } } }),
      createStore({ driver: 'memory' }),
    );
    expect(await access.check(message({ scope: 'group', chatId: '-1002' }))).toEqual(allowed);
    expect(await access.check(message({ scope: 'group', chatId: '-1003' }))).toEqual({ allowed: false });
    expect(await access.check(message({ platform: 'discord', scope: 'group', chatId: 'c1', userId: '9' }))).toEqual(allowed);
    expect(await access.check(message({ platform: 'discord', scope: 'group', chatId: 'c1', userId: '8' }))).toEqual({ allowed: false });
    // Other platforms are not restricted by Telegram's lists.
    expect(await access.check(message({ platform: 'slack', scope: 'group', chatId: 'C1' }))).toEqual(allowed);
  });

  it('needs both the chat and the person when both lists are set', async () => {
    const access = createAccessPolicy(config({ ...openGroups, allowlists: { ...config().allowlists, telegram: { chats: ['-1001'], users: ['42'] } } }), createStore({ driver: 'memory' }));
    expect(await access.check(message({ scope: 'group', chatId: '-1001', userId: '42' }))).toEqual(allowed);
    expect(await access.check(message({ scope: 'group', chatId: '-1001', userId: '43' }))).toEqual({ allowed: false });
    expect(await access.check(message({ scope: 'group', chatId: '-1009', userId: '42' }))).toEqual({ allowed: false });
  });
});

describe('access: direct messages', () => {
  it('has the default policies: pairing on Telegram and Discord, open on Slack; the web chat unset is pairing (the gateway opens it while local)', async () => {
    const access = createAccessPolicy(config(), createStore({ driver: 'memory' }));
    expect(await access.check(message({ platform: 'slack', userId: 'U1' }))).toEqual(allowed);
    expect((await access.check(message({ platform: 'web', userId: 'browser-1' }))).allowed).toBe(false);
    const local = createAccessPolicy(config({ dmPolicy: { ...config().dmPolicy, web: 'open' } }), createStore({ driver: 'memory' }));
    expect(await local.check(message({ platform: 'web', userId: 'browser-1' }))).toEqual(allowed);
    for (const platform of ['telegram', 'discord']) {
      const decision = await access.check(message({ platform }));
      expect(decision.allowed).toBe(false);
      expect(decision).toHaveProperty('reply', expect.stringContaining('pairing code'));
    }
  });

  it('open lets anyone in', async () => {
    const access = createAccessPolicy(config({ dmPolicy: { ...config().dmPolicy, telegram: 'open' } }), createStore({ driver: 'memory' }));
    expect(await access.check(message({ userId: '12345' }))).toEqual(allowed);
  });

  it('allowlist lets in listed and paired people and refuses others with their id', async () => {
    const store = createStore({ driver: 'memory' });
    const dmPolicy = { ...config().dmPolicy, telegram: 'allowlist' as const };
    const access = createAccessPolicy(config({ dmPolicy, allowlists: { ...config().allowlists, telegram: { chats: [], users: ['7'] } } }), store);
    expect(await access.check(message({ userId: '7' }))).toEqual(allowed);
    expect(await access.check(message({ userId: '8' }))).toEqual({
      allowed: false,
      reason: 'not on the allowlist',
      reply: 'Sorry, I only talk with people on my allowlist. Ask an admin of this bot to add you (your id: telegram:8).',
    });
    // Someone approved earlier (under the pairing policy) stays allowed.
    const pairing = createAccessPolicy(config(), store);
    const code = codeOf(await pairing.check(message({ userId: '9' })));
    await pairing.approvePairing(code);
    expect(await access.check(message({ userId: '9' }))).toEqual(allowed);
  });

  it('gives bots no pairing code', async () => {
    const access = createAccessPolicy(config(), createStore({ driver: 'memory' }));
    expect(await access.check(message({ isBot: true }))).toEqual({ allowed: false });
    expect(await access.listPairings()).toEqual({ pending: [], approved: [], denied: [], owner: undefined, groups: noGroups });
  });

  it('applies the pairing policy to a platform it does not know', async () => {
    const access = createAccessPolicy(config(), createStore({ driver: 'memory' }));
    expect((await access.check(message({ platform: 'matrix' }))).allowed).toBe(false);
  });
});

/** The code in a pairing reply. */
function codeOf(decision: { allowed: boolean; reply?: string }): string {
  const code = /\n\n([A-Z0-9]{8})\n\n/.exec(decision.reply ?? '')?.[1];
  if (!code) throw new Error(`no code in ${JSON.stringify(decision)}`);
  return code;
}

describe('pairing', () => {
  const start = Date.UTC(2026, 0, 1, 12, 0, 0);

  function setup() {
    let now = start;
    const clock = { now: () => now, advance: (ms: number) => (now += ms) };
    const store = createStore({ driver: 'memory', now: clock.now });
    return { clock, store, access: createAccessPolicy(config(), store, { now: clock.now }) };
  }

  it('hands an unknown person an 8-character code without look-alikes, valid one hour', async () => {
    const { access } = setup();
    const decision = await access.check(message({ userId: '42' }));
    const code = codeOf(decision);
    expect(code).toMatch(/^[A-HJ-NP-Z2-9]{8}$/);
    expect(decision).toEqual({
      allowed: false,
      reply: [
        "Hi! I don't know you yet. To talk with me, send this pairing code to an admin of this bot:",
        '',
        code,
        '',
        `The code is valid for 1 hour. An admin approves it with /pair ${code} (or operator pairing approve ${code}).`,
      ].join('\n'),
      // For the log: the code an admin approves.
      pairingCode: code,
    });
    expect(pairingAlphabet).not.toMatch(/[0O1I]/);
    expect(pairingAlphabet).toHaveLength(32);
  });

  it('gives out only alphabet characters across many codes', async () => {
    const { access } = setup();
    const codes = new Set<string>();
    for (let user = 0; user < 200; user++) codes.add(codeOf(await access.check(message({ userId: String(user) }))));
    expect(codes.size).toBe(200);
    for (const code of codes) expect([...code].every((char) => pairingAlphabet.includes(char))).toBe(true);
  });

  it('gives the same code when asked again within the hour, and a new one after', async () => {
    const { access, clock } = setup();
    const first = codeOf(await access.check(message()));
    clock.advance(20 * 60_000);
    const again = await access.check(message());
    expect(codeOf(again)).toBe(first);
    expect(again).toHaveProperty('reply', expect.stringContaining('valid for 40 minutes'));
    clock.advance(40 * 60_000);
    expect(codeOf(await access.check(message()))).not.toBe(first);
  });

  it('gives one code to concurrent messages of one person', async () => {
    const { access } = setup();
    const decisions = await Promise.all(Array.from({ length: 10 }, () => access.check(message())));
    expect(new Set(decisions.map(codeOf)).size).toBe(1);
    expect((await access.listPairings()).pending).toHaveLength(1);
  });

  it('approves a code: the person is remembered and gets in', async () => {
    const { access, clock } = setup();
    const code = codeOf(await access.check(message({ userId: '42', name: 'Ada' })));
    clock.advance(5 * 60_000);
    const approved = await access.approvePairing(code.toLowerCase().replace(/^(....)/, '$1-'));
    expect(approved).toEqual({ platform: 'telegram', userId: '42', name: 'Ada', username: 'ada', code, approvedAt: start + 5 * 60_000 });
    expect(await access.check(message({ userId: '42' }))).toEqual(allowed);
    expect(await access.listPairings()).toEqual({ pending: [], approved: [approved], denied: [], owner: undefined, groups: noGroups });
  });

  it('refuses unknown, malformed, expired and already used codes with clear errors', async () => {
    const { access, clock } = setup();
    await expect(access.approvePairing('ABCDEFGH')).rejects.toThrow(new PairingError('Unknown pairing code ABCDEFGH: check it, or ask the person to write to the bot again for a new one'));
    await expect(access.approvePairing('ABC0')).rejects.toThrow('Not a pairing code: codes are 8 letters and digits without 0, O, 1 or I (e.g. K7QM2XPA)');
    await expect(access.approvePairing('ABCDEFG1')).rejects.toBeInstanceOf(PairingError);

    const code = codeOf(await access.check(message({ userId: '1' })));
    clock.advance(60 * 60_000);
    await expect(access.approvePairing(code)).rejects.toThrow(
      `Pairing code ${code} has expired (codes are valid for 1 hour); ask the person to write to the bot again for a new one`,
    );
    expect((await access.check(message({ userId: '1' }))).allowed).toBe(false);

    const used = codeOf(await access.check(message({ userId: '2' })));
    await access.approvePairing(used);
    await expect(access.approvePairing(used)).rejects.toThrow(`Unknown pairing code ${used}`);
  });

  it('lists valid pending codes oldest first, without expired ones', async () => {
    const { access, clock } = setup();
    const first = codeOf(await access.check(message({ userId: '1', name: 'One' })));
    clock.advance(50 * 60_000);
    const second = codeOf(await access.check(message({ userId: '2', name: 'Two' })));
    clock.advance(1 * 60_000);
    const third = codeOf(await access.check(message({ platform: 'discord', userId: '3', name: 'Three' })));
    expect((await access.listPairings()).pending.map((request) => request.code)).toEqual([first, second, third]);
    clock.advance(10 * 60_000);
    const { pending } = await access.listPairings();
    expect(pending.map((request) => [request.code, request.platform, request.userId, request.name])).toEqual([
      [second, 'telegram', '2', 'Two'],
      [third, 'discord', '3', 'Three'],
    ]);
    expect(pending[0]!.expiresAt).toBe(pending[0]!.createdAt + 3_600_000);
  });

  it('keeps approvals in the store for every later policy instance', async () => {
    const { store, clock } = setup();
    const first = createAccessPolicy(config(), store, { now: clock.now });
    await first.approvePairing(codeOf(await first.check(message({ userId: '77' }))));
    const later = createAccessPolicy(config(), store, { now: clock.now });
    expect(await later.check(message({ userId: '77' }))).toEqual(allowed);
    // Approval is per platform.
    expect((await later.check(message({ platform: 'discord', userId: '77' }))).allowed).toBe(false);
  });
});
