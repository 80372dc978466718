/** The approval notices: sent once, kept until sent, never sent twice, never for an approval taken back. */
import { describe, expect, it } from 'vitest';
import type { ConversationAddress, InboundMessage, OutboundMessage } from '../../src/channels/types.ts';
import { createAccessPolicy, PairingBook, PairingNotifier } from '../../src/gateway/access/index.ts';
import { loadConfig } from '../../src/gateway/config/index.ts';
import { createStore, type Store } from '../../src/store/index.ts';

/** A channel that records what it sends, and fails while `failing` is set. */
function fakeChannel() {
  const sent: { address: ConversationAddress; text: string }[] = [];
  const channel = {
    failing: false,
    sent,
    async send(address: ConversationAddress, message: OutboundMessage) {
      if (channel.failing) throw new Error('network down');
      sent.push({ address, text: message.text ?? '' });
      return { ids: [String(sent.length)] };
    },
  };
  return channel;
}

function dm(userId: string): InboundMessage {
  return {
    id: '1',
    dedupeKey: `telegram:update:${userId}`,
    sessionKey: `telegram:dm:${userId}`,
    address: { platform: 'telegram', conversationId: userId },
    scope: 'dm',
    sender: { id: userId, name: 'Ada' },
    text: 'hi',
    attachments: [],
    mentioned: true,
    receivedAt: 0,
    raw: null,
  };
}

const start = Date.UTC(2026, 0, 1, 12, 0, 0);

function setup(options: { store?: Store; channel?: ReturnType<typeof fakeChannel>; platforms?: string[] } = {}) {
  let now = start;
  const clock = { now: () => now, advance: (ms: number) => (now += ms) };
  const store = options.store ?? createStore({ driver: 'memory', now: clock.now });
  const access = createAccessPolicy(loadConfig({ OPERATOR_HOME: '/nonexistent-operator-home' }).config, store, { now: clock.now });
  const channel = options.channel ?? fakeChannel();
  const logs: string[] = [];
  const adapters = new Map((options.platforms ?? ['telegram']).map((platform) => [platform, channel]));
  const notifier = new PairingNotifier({ store, adapters, refresh: () => access.refresh(), log: (line) => logs.push(line), now: clock.now });
  return { clock, store, access, channel, logs, notifier, book: new PairingBook(store, { now: clock.now }) };
}

async function codeFor(access: ReturnType<typeof setup>['access'], userId: string): Promise<string> {
  const decision = await access.check(dm(userId));
  return /\n\n([A-Z0-9]{8})\n\n/.exec(decision.allowed ? '' : (decision.reply ?? ''))![1]!;
}

describe('pairing notices', () => {
  it('tells the approved person once, in the conversation they asked in', async () => {
    const { access, channel, notifier, store } = setup();
    await access.approvePairing(await codeFor(access, '42'));
    await notifier.sweep();
    await notifier.sweep();
    expect(channel.sent).toEqual([{ address: { platform: 'telegram', conversationId: '42' }, text: 'You can talk to me now: an admin approved your pairing code.' }]);
    expect(await store.list('pairing:notice:')).toEqual([]);
  });

  it('sends once when sweeps are asked for at the same time', async () => {
    const { access, channel, notifier } = setup();
    await access.approvePairing(await codeFor(access, '42'));
    await Promise.all([notifier.sweep(), notifier.sweep(), notifier.sweep()]);
    expect(channel.sent).toHaveLength(1);
  });

  it('tells the owner they are one', async () => {
    const { access, book, channel, notifier } = setup();
    await book.approve(await codeFor(access, '42'), { owner: true });
    await notifier.sweep();
    expect(channel.sent.map((sent) => sent.text)).toEqual(['You can talk to me now: an admin approved your pairing code. You are my owner, so admin commands such as /pair are yours too.']);
    // The sweep read the owner: the gateway's admin checks know them now.
    expect(access.isAdmin('telegram', '42')).toBe(true);
  });

  it('keeps a notice whose send failed and tries again later, logging once', async () => {
    const { access, channel, clock, logs, notifier } = setup();
    await access.approvePairing(await codeFor(access, '42'));
    channel.failing = true;
    await notifier.sweep();
    await notifier.sweep();
    expect(logs).toEqual(['pairing: could not tell telegram:42 they were approved (network down); trying again later']);
    channel.failing = false;
    await notifier.sweep();
    expect(channel.sent).toHaveLength(0);
    clock.advance(10_000);
    await notifier.sweep();
    expect(channel.sent).toHaveLength(1);
  });

  it('keeps a notice across a restart: a gateway started later sends it', async () => {
    const first = setup();
    await first.access.approvePairing(await codeFor(first.access, '42'));
    // The approving process has no channel (operator pairing): nothing is sent.
    const later = setup({ store: first.store });
    await later.notifier.sweep();
    expect(later.channel.sent).toHaveLength(1);
  });

  it("waits for a gateway that runs the person's platform", async () => {
    const { access, channel, notifier, store } = setup({ platforms: ['discord'] });
    await access.approvePairing(await codeFor(access, '42'));
    await notifier.sweep();
    expect(channel.sent).toHaveLength(0);
    expect(await store.list('pairing:notice:')).toHaveLength(1);
  });

  it('never sends a notice twice: one found marked as being sent (a crash mid-send) is dropped with a log line', async () => {
    const { access, channel, logs, notifier, store } = setup();
    await access.approvePairing(await codeFor(access, '42'));
    const notice = await store.get<Record<string, unknown>>('pairing:notice:telegram:42');
    await store.set('pairing:notice:telegram:42', { ...notice, claimedAt: start });
    await notifier.sweep();
    expect(channel.sent).toHaveLength(0);
    expect(logs).toEqual(['pairing: the approval notice to telegram:42 may not have gone out (the gateway stopped while sending it); not sent again']);
    expect(await store.list('pairing:notice:')).toEqual([]);
  });

  it('waits for an approval still being written, and drops a notice whose approval never came', async () => {
    const { access, channel, clock, notifier, store } = setup();
    await access.approvePairing(await codeFor(access, '42'));
    await store.delete('pairing:approved:telegram:42');
    await notifier.sweep();
    expect(await store.list('pairing:notice:')).toHaveLength(1);
    clock.advance(61_000);
    await notifier.sweep();
    expect(await store.list('pairing:notice:')).toEqual([]);
    expect(channel.sent).toHaveLength(0);
  });

  it('sweeps at start and then on its own until stopped', async () => {
    const { access, channel, clock, store, logs } = setup();
    const notifier = new PairingNotifier({ store, adapters: new Map([['telegram', channel]]), refresh: () => access.refresh(), log: (line) => logs.push(line), intervalMs: 20, now: clock.now });
    notifier.start();
    await access.approvePairing(await codeFor(access, '42'));
    await expect.poll(() => channel.sent.length, { timeout: 2_000 }).toBe(1);
    await notifier.stop();
    await access.approvePairing(await codeFor(access, '43'));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(channel.sent).toHaveLength(1);
  });
});
