/**
 * Groups need an admin's yes: `groupPolicy` per platform (`approval`, `allowlist`, `open`), the
 * group's pairing code told once, approvals by code and by an admin adding the bot, refusals,
 * revocations, the limits on waiting groups, and the notice that tells an approved group; through
 * the access policy (as the gateway sees it) and the book (as `operator pairing` changes it), on
 * one store.
 */
import { describe, expect, it } from 'vitest';
import type { ConversationAddress, GroupJoin, GroupRef, InboundMessage, OutboundMessage } from '../../src/channels/types.ts';
import { createAccessPolicy, groupNoticeText, PairingBook, PairingError, PairingNotifier, type AccessPolicyOptions } from '../../src/gateway/access/index.ts';
import { loadConfig, type GatewayConfig, type GroupPolicy } from '../../src/gateway/config/index.ts';
import { createStore } from '../../src/store/index.ts';

const start = Date.UTC(2026, 0, 1, 12, 0, 0);
const admin = '1';

function config(changes: Partial<GatewayConfig> = {}): GatewayConfig {
  return { ...loadConfig({ OPERATOR_HOME: '/nonexistent-operator-home' }).config, admins: [`telegram:${admin}`, `slack:U0ADMIN`, `discord:${admin}`], ...changes };
}

function policy(policy: GroupPolicy): Pick<GatewayConfig, 'groupPolicy'> {
  return { groupPolicy: { telegram: policy, discord: policy, slack: policy } };
}

interface GroupMessageOptions {
  platform?: string;
  chatId?: string;
  userId?: string;
  mentioned?: boolean;
  command?: string;
  isBot?: boolean;
  group?: GroupRef;
  threadId?: string;
}

/** A message in a group (Telegram's `-1001` unless said), addressed to the bot unless said. */
function inGroup(options: GroupMessageOptions = {}): InboundMessage {
  const platform = options.platform ?? 'telegram';
  const chatId = options.chatId ?? '-1001';
  return {
    id: '1',
    dedupeKey: `${platform}:update:${Math.random()}`,
    sessionKey: `${platform}:group:${chatId}`,
    address: { platform, conversationId: chatId, ...(options.threadId ? { threadId: options.threadId } : {}) },
    scope: 'group',
    ...(options.group ? { group: options.group } : {}),
    sender: { id: options.userId ?? '7', name: 'Mallory', username: 'mallory', isBot: options.isBot },
    text: 'hello',
    attachments: [],
    mentioned: options.mentioned ?? true,
    ...(options.command ? { command: { name: options.command, args: '' } } : {}),
    receivedAt: 0,
    raw: null,
  };
}

/** The bot added to Telegram group `chatId` by `by`. */
function joined(by: string | undefined, chatId = '-1001'): GroupJoin {
  return {
    dedupeKey: `telegram:update:${Math.random()}`,
    address: { platform: 'telegram', conversationId: chatId },
    sessionKey: `telegram:group:${chatId}`,
    group: { kind: 'group', id: chatId, title: 'Team' },
    ...(by !== undefined ? { by: { id: by, name: 'Someone' } } : {}),
    raw: null,
  };
}

/** The group's code in a refusal (or a join's outcome) that told it. */
function codeOf(decision: object): string {
  const reply = 'reply' in decision && typeof decision.reply === 'string' ? decision.reply : '';
  const code = /\/pair ([A-Z0-9]{8})\n/.exec(reply)?.[1];
  if (!code) throw new Error(`no code in ${JSON.stringify(decision)}`);
  return code;
}

function setup(changes: Partial<GatewayConfig> = {}, options: AccessPolicyOptions = {}) {
  let now = start;
  const clock = { now: () => now, advance: (ms: number) => (now += ms) };
  const store = createStore({ driver: 'memory', now: clock.now });
  return { clock, store, access: createAccessPolicy(config(changes), store, { now: clock.now, ...options }), book: new PairingBook(store, { now: clock.now }) };
}

const allowed = { allowed: true, admin: false };

describe('groups under groupPolicy approval (the default)', () => {
  it("answers a stranger's group once with its code, then says nothing, and nothing is allowed", async () => {
    const { access } = setup();
    const first = await access.check(inGroup());
    expect(first.allowed).toBe(false);
    const code = codeOf(first);
    expect(first).toEqual({ allowed: false, reply: expect.stringContaining(`operator pairing approve ${code}`), pairingCode: code, reason: 'group not approved: pairing code told' });
    expect(first.allowed === false && first.reply).toContain('valid for 1 hour');
    // Everyone else, and the same person again: silence, and the same code waiting.
    expect(await access.check(inGroup())).toEqual({ allowed: false, reason: 'group waiting for approval (its code was told)' });
    expect(await access.check(inGroup({ userId: '8' }))).toEqual({ allowed: false, reason: 'group waiting for approval (its code was told)' });
    const listed = await access.listPairings();
    expect(listed.pending).toEqual([]);
    expect(listed.groups.pending).toEqual([
      {
        group: { platform: 'telegram', kind: 'group', id: '-1001' },
        code,
        createdAt: start,
        expiresAt: start + 3_600_000,
        address: { platform: 'telegram', conversationId: '-1001' },
        askedBy: { platform: 'telegram', userId: '7', name: 'Mallory', username: 'mallory' },
      },
    ]);
  });

  it('gives no code for what is not addressed to the bot, nor to a bot', async () => {
    const { access } = setup();
    expect(await access.check(inGroup({ mentioned: false }))).toEqual({ allowed: false, reason: 'group not approved' });
    expect(await access.check(inGroup({ isBot: true }))).toEqual({ allowed: false, reason: 'group not approved (a bot asked)' });
    expect((await access.listPairings()).groups.pending).toEqual([]);
    // A command is addressed to the bot.
    expect(codeOf(await access.check(inGroup({ mentioned: false, command: 'help' })))).toMatch(/^[A-Z0-9]{8}$/);
  });

  it('lets admins in everywhere, and serves a group once its code is approved, telling it', async () => {
    const { access, store } = setup();
    expect(await access.check(inGroup({ userId: admin }))).toEqual({ allowed: true, admin: true });
    const code = codeOf(await access.check(inGroup({ threadId: '17' })));
    const approved = await access.approvePairing(code.toLowerCase());
    expect(approved).toEqual({ group: { platform: 'telegram', kind: 'group', id: '-1001' }, approvedAt: start, code, askedBy: { platform: 'telegram', userId: '7', name: 'Mallory', username: 'mallory' } });
    expect(await access.check(inGroup())).toEqual(allowed);
    expect(await access.check(inGroup({ userId: '9', mentioned: false }))).toEqual(allowed);
    // Its other topics are the same group.
    expect(await access.check(inGroup({ threadId: '99' }))).toEqual(allowed);
    // Told where the code was given (its topic).
    expect(await store.get('pairing:notice:group:telegram:group:-1001')).toMatchObject({ group: { platform: 'telegram', kind: 'group', id: '-1001' }, address: { platform: 'telegram', conversationId: '-1001', threadId: '17' } });
    const listed = await access.listPairings();
    expect(listed.groups).toEqual({ pending: [], approved: [approved], denied: [] });
    // Another group is still a stranger's.
    expect((await access.check(inGroup({ chatId: '-1002' }))).allowed).toBe(false);
    await expect(access.approvePairing(code)).rejects.toThrow(`Unknown pairing code ${code}`);
  });

  it('gives a new code once the first expired, and refuses to approve the expired one', async () => {
    const { access, clock } = setup();
    const first = codeOf(await access.check(inGroup()));
    clock.advance(3_600_000);
    await expect(access.approvePairing(first)).rejects.toThrow(new PairingError(`Pairing code ${first} of telegram:group:-1001 has expired (codes are valid for 1 hour); a new one is given at the next mention of the bot there`));
    const second = codeOf(await access.check(inGroup()));
    expect(second).not.toBe(first);
    expect(await access.check(inGroup())).toMatchObject({ allowed: false, reason: 'group waiting for approval (its code was told)' });
  });

  it('keeps a declined group silent with no code for a day, then gives a new one', async () => {
    const { access, book, clock } = setup();
    const code = codeOf(await access.check(inGroup()));
    const denied = await book.deny(code);
    expect(denied).toEqual({ group: { platform: 'telegram', kind: 'group', id: '-1001' }, code, deniedAt: start, until: start + 86_400_000 });
    expect(await access.check(inGroup())).toEqual({ allowed: false, reason: 'group declined by an admin' });
    expect((await access.listPairings()).groups.denied).toEqual([denied]);
    clock.advance(86_400_000);
    expect(codeOf(await access.check(inGroup()))).not.toBe(code);
  });

  it('takes an approval back: the next mention is a stranger group\'s again', async () => {
    const { access, book } = setup();
    await access.approvePairing(codeOf(await access.check(inGroup())));
    expect(await access.check(inGroup())).toEqual(allowed);
    const revoked = await book.groups.revoke({ platform: 'telegram', kind: 'group', id: '-1001' });
    expect(revoked?.group.id).toBe('-1001');
    expect(codeOf(await access.check(inGroup()))).toMatch(/^[A-Z0-9]{8}$/);
    expect(await book.groups.revoke({ platform: 'telegram', kind: 'group', id: '-1001' })).toBeUndefined();
  });

  it('refuses to make a group the owner', async () => {
    const { access, book } = setup({ admins: [] });
    const code = codeOf(await access.check(inGroup()));
    await expect(book.approve(code, { owner: true })).rejects.toThrow(`Pairing code ${code} is a group's (telegram:group:-1001): a group cannot be the owner`);
    expect(await book.owner()).toBeUndefined();
    expect((await access.listPairings()).groups.pending).toHaveLength(1);
  });

  it('limits the groups waiting at once, and those one person asks for, so strangers cannot fill the list', async () => {
    const { access, clock } = setup({}, { maxWaiting: 4, maxWaitingPerPerson: 2 });
    codeOf(await access.check(inGroup({ chatId: '-1', userId: '7' })));
    codeOf(await access.check(inGroup({ chatId: '-2', userId: '7' })));
    expect(await access.check(inGroup({ chatId: '-3', userId: '7' }))).toEqual({ allowed: false, reason: 'group not approved; no new pairing code: telegram:7 asked for 2 groups already (at most 2 at once)' });
    codeOf(await access.check(inGroup({ chatId: '-3', userId: '8' })));
    codeOf(await access.check(inGroup({ chatId: '-4', userId: '9' })));
    expect(await access.check(inGroup({ chatId: '-5', userId: '10' }))).toEqual({ allowed: false, reason: 'group not approved; no new pairing code: 4 groups are waiting for approval already (at most 4)' });
    expect((await access.listPairings()).groups.pending).toHaveLength(4);
    // Expired codes free their places.
    clock.advance(3_600_000);
    codeOf(await access.check(inGroup({ chatId: '-5', userId: '10' })));
  });

  it("approves a Discord server as a whole, and names a Slack channel as Slack's adapter does", async () => {
    const { access } = setup();
    const guild: GroupRef = { kind: 'guild', id: '8123', title: 'Ada\'s server' };
    const code = codeOf(await access.check(inGroup({ platform: 'discord', chatId: 'c1', group: guild })));
    // Another channel of the same server waits with the same code: nothing more is said.
    expect(await access.check(inGroup({ platform: 'discord', chatId: 'c2', group: guild }))).toMatchObject({ allowed: false, reason: 'group waiting for approval (its code was told)' });
    expect(await access.approvePairing(code)).toMatchObject({ group: { platform: 'discord', kind: 'guild', id: '8123', title: "Ada's server" } });
    expect(await access.check(inGroup({ platform: 'discord', chatId: 'c3', group: guild }))).toEqual(allowed);
    expect((await access.check(inGroup({ platform: 'discord', chatId: 'c9', group: { kind: 'guild', id: '9999' } }))).allowed).toBe(false);
    const slack = codeOf(await access.check(inGroup({ platform: 'slack', chatId: 'C01', group: { kind: 'channel', id: 'C01' } })));
    expect(await access.approvePairing(slack)).toMatchObject({ group: { platform: 'slack', kind: 'channel', id: 'C01' } });
  });

  it('serves the chats of allowlists.<platform>.chats without approval; allowlists.<platform>.users still picks who', async () => {
    const { access } = setup({ allowlists: { ...config().allowlists, telegram: { chats: ['-1001'], users: [] }, slack: { chats: [], users: ['U1'] } } });
    expect(await access.check(inGroup({ chatId: '-1001' }))).toEqual(allowed);
    expect(codeOf(await access.check(inGroup({ chatId: '-1002' })))).toMatch(/^[A-Z0-9]{8}$/);
    expect(await access.check(inGroup({ platform: 'slack', chatId: 'C02', userId: 'U2' }))).toEqual({ allowed: false });
    expect(codeOf(await access.check(inGroup({ platform: 'slack', chatId: 'C02', userId: 'U1' })))).toMatch(/^[A-Z0-9]{8}$/);
  });
});

describe('groups: the bot added to a group', () => {
  it('approves a group at once when an admin added the bot (the owner made by pairing counts), quietly', async () => {
    const { access, store } = setup();
    const outcome = await access.groupJoined(joined(admin));
    expect(outcome).toEqual({ approved: { group: { platform: 'telegram', kind: 'group', id: '-1001', title: 'Team' }, approvedAt: start, addedBy: `telegram:${admin}` } });
    expect(await access.check(inGroup())).toEqual(allowed);
    expect(await access.groupJoined(joined(admin))).toEqual({ reason: 'already approved' });
    expect(await store.list('pairing:notice:')).toEqual([]);
  });

  it('gives the group its code when someone else added the bot, once; an admin adding it later approves it and drops the code', async () => {
    const { access } = setup();
    const outcome = await access.groupJoined(joined('7'));
    const code = codeOf(outcome);
    expect(outcome.pairingCode).toBe(code);
    // The first mention then says nothing more.
    expect(await access.check(inGroup())).toMatchObject({ allowed: false, reason: 'group waiting for approval (its code was told)' });
    expect(await access.groupJoined(joined('8'))).toEqual({ reason: 'group waiting for approval (its code was told)' });
    expect((await access.groupJoined(joined(admin))).approved).toBeDefined();
    expect(await access.check(inGroup())).toEqual(allowed);
    expect((await access.listPairings()).groups.pending).toEqual([]);
    await expect(access.approvePairing(code)).rejects.toThrow(`Unknown pairing code ${code}`);
  });

  it('counts the owner made by pairing as an admin', async () => {
    const { access, book } = setup({ admins: [] });
    const dm: InboundMessage = { ...inGroup({ userId: '42' }), scope: 'dm', sessionKey: 'telegram:dm:42', address: { platform: 'telegram', conversationId: '42' } };
    const reply = (await access.check(dm)) as { reply: string };
    await book.approve(/\n\n([A-Z0-9]{8})\n\n/.exec(reply.reply)![1]!, { owner: true });
    expect((await access.groupJoined(joined('42'))).approved?.addedBy).toBe('telegram:42');
  });

  it('carries an approval over to the supergroup a Telegram group became; an unapproved group carries nothing', async () => {
    const { access } = setup();
    await access.groupJoined(joined(admin, '-4001'));
    const moved = (from: string, to: string): GroupJoin => ({ ...joined(undefined, to), movedFrom: { kind: 'group', id: from } });
    expect(await access.groupJoined(moved('-4001', '-1004001'))).toEqual({
      approved: { group: { platform: 'telegram', kind: 'group', id: '-1004001', title: 'Team' }, approvedAt: start, addedBy: `telegram:${admin}`, movedFrom: 'telegram:group:-4001' },
    });
    expect(await access.check(inGroup({ chatId: '-1004001' }))).toEqual(allowed);
    expect(await access.groupJoined(moved('-4002', '-1004002'))).toEqual({ reason: 'moved from a group that was not approved' });
    expect((await access.check(inGroup({ chatId: '-1004002' }))).allowed).toBe(false);
  });

  it('names nobody when the platform does not say who added the bot: a code, as for a stranger', async () => {
    const { access } = setup();
    expect(codeOf(await access.groupJoined(joined(undefined)))).toMatch(/^[A-Z0-9]{8}$/);
  });
});

describe('groups under groupPolicy allowlist', () => {
  it('serves approved, admin-added and listed groups, and gives strangers no code', async () => {
    const { access, book } = setup({ ...policy('allowlist'), allowlists: { ...config().allowlists, telegram: { chats: ['-1009'], users: [] } } });
    expect(await access.check(inGroup())).toEqual({ allowed: false, reason: 'group not approved (groupPolicy allowlist)' });
    expect(await access.groupJoined(joined('7'))).toEqual({ reason: 'not added by an admin (groupPolicy allowlist: no code)' });
    expect(await access.check(inGroup({ chatId: '-1009' }))).toEqual(allowed);
    await access.groupJoined(joined(admin, '-1002'));
    expect(await access.check(inGroup({ chatId: '-1002' }))).toEqual(allowed);
    expect((await book.list()).groups.pending).toEqual([]);
  });
});

describe('groups under groupPolicy open', () => {
  it('serves every group, or only the listed chats when allowlists name some, and asks for no approval', async () => {
    const open = setup(policy('open'));
    expect(await open.access.check(inGroup())).toEqual(allowed);
    expect(await open.access.groupJoined(joined('7'))).toEqual({ reason: 'served without approval (groupPolicy open)' });
    const listed = setup({ ...policy('open'), allowlists: { ...config().allowlists, telegram: { chats: ['-1001'], users: [] } } });
    expect(await listed.access.check(inGroup())).toEqual(allowed);
    expect(await listed.access.check(inGroup({ chatId: '-1002' }))).toEqual({ allowed: false });
  });

  it('is per platform', async () => {
    const { access } = setup({ groupPolicy: { telegram: 'open', discord: 'approval', slack: 'allowlist' } });
    expect(await access.check(inGroup())).toEqual(allowed);
    expect(codeOf(await access.check(inGroup({ platform: 'discord', chatId: 'c1', group: { kind: 'guild', id: 'g1' } })))).toMatch(/^[A-Z0-9]{8}$/);
    expect(await access.check(inGroup({ platform: 'slack', chatId: 'C1', group: { kind: 'channel', id: 'C1' } }))).toMatchObject({ allowed: false, reason: 'group not approved (groupPolicy allowlist)' });
  });
});

describe('groups: telling an approved group', () => {
  it('sends the group its notice once, where its code was given', async () => {
    const { access, store, clock } = setup();
    const sent: { address: ConversationAddress; text: string }[] = [];
    const channel = {
      async send(address: ConversationAddress, message: OutboundMessage) {
        sent.push({ address, text: message.text });
        return { ids: ['1'] };
      },
    };
    const notifier = new PairingNotifier({ store, adapters: new Map([['telegram', channel]]), refresh: () => access.refresh(), log: () => {}, now: clock.now });
    await access.approvePairing(codeOf(await access.check(inGroup({ threadId: '17' }))));
    await notifier.sweep();
    await notifier.sweep();
    expect(sent).toEqual([{ address: { platform: 'telegram', conversationId: '-1001', threadId: '17' }, text: groupNoticeText }]);
  });

  it('never tells a group whose approval was taken back first', async () => {
    const { access, store, book, clock } = setup();
    const sent: string[] = [];
    const channel = {
      async send(_address: ConversationAddress, message: OutboundMessage) {
        sent.push(message.text);
        return { ids: ['1'] };
      },
    };
    const notifier = new PairingNotifier({ store, adapters: new Map([['telegram', channel]]), refresh: () => access.refresh(), log: () => {}, now: clock.now });
    await access.approvePairing(codeOf(await access.check(inGroup())));
    await book.groups.revoke({ platform: 'telegram', kind: 'group', id: '-1001' });
    await notifier.sweep();
    expect(sent).toEqual([]);
  });
});
