/**
 * Saying why, once an hour: the limiter (a reason told to a person stays told for the hour, a
 * different reason or person is told at once, memory stays bounded), which turn failures count as
 * refusals and with which reason, and the refusals' reports (every one with its reason, and
 * whether the sender heard it) with the real access policy and ops events: files too large and a
 * message whose profile does not load are told once an hour too.
 */
import { describe, expect, it } from 'vitest';
import type { InboundMessage } from '../../src/channels/types.ts';
import { BudgetExhaustedError, ProviderError } from '../../src/core/errors.ts';
import { createAccessPolicy } from '../../src/gateway/access/access-policy.ts';
import { SpendingPausedError } from '../../src/gateway/budget/spending-paused.ts';
import { refusalReason } from '../../src/gateway/failure-reply.ts';
import { OpsEvents, type OpsRecord } from '../../src/gateway/ops/ops-events.ts';
import { RefusalNotices, refusalNoticeWindowMs } from '../../src/gateway/refusal-notices.ts';
import { notHandledReply, Refusals } from '../../src/gateway/refusals.ts';
import { unconfiguredProviderName } from '../../src/llm/unconfigured-provider.ts';
import { createStore } from '../../src/store/index.ts';
import { loadConfig, type GatewayConfig } from '../../src/gateway/config/index.ts';

/** The default configuration with `changes`. */
function config(changes: Partial<GatewayConfig> = {}): GatewayConfig {
  return { ...loadConfig({ OPERATOR_HOME: '/nonexistent-operator-home' }).config, ...changes };
}

/** A clock the test moves. */
function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

function dm(userId: string, platform = 'telegram'): InboundMessage {
  return {
    id: '1',
    dedupeKey: `${platform}:update:${userId}`,
    sessionKey: `${platform}:dm:${userId}`,
    address: { platform, conversationId: userId },
    scope: 'dm',
    sender: { id: userId, name: 'Ada', username: 'ada' },
    text: 'hello',
    attachments: [],
    mentioned: true,
    receivedAt: 0,
    raw: null,
  };
}

describe('RefusalNotices', () => {
  it('tells a reason once per person per hour, and again once the hour is over', () => {
    const time = clock();
    const notices = new RefusalNotices({ now: time.now });
    expect(notices.take('telegram:1', 'spending cap (person, day)')).toBe(true);
    expect(notices.take('telegram:1', 'spending cap (person, day)')).toBe(false);
    time.advance(refusalNoticeWindowMs - 1);
    expect(notices.take('telegram:1', 'spending cap (person, day)')).toBe(false);
    time.advance(1);
    expect(notices.take('telegram:1', 'spending cap (person, day)')).toBe(true);
    expect(notices.take('telegram:1', 'spending cap (person, day)')).toBe(false);
  });

  it('tells a different reason, and another person, at once', () => {
    const notices = new RefusalNotices({ now: clock().now });
    expect(notices.take('telegram:1', 'model calls paused')).toBe(true);
    expect(notices.take('telegram:1', 'no model configured')).toBe(true);
    expect(notices.take('telegram:2', 'model calls paused')).toBe(true);
    expect(notices.take('discord:1', 'model calls paused')).toBe(true);
    expect(notices.take('telegram:1', 'model calls paused')).toBe(false);
    expect(notices.take('telegram:1', 'no model configured')).toBe(false);
  });

  it('forgets what is past the hour, and the oldest beyond its bound (at worst telling once more)', () => {
    const time = clock();
    const notices = new RefusalNotices({ now: time.now, maxEntries: 3 });
    for (const person of ['a', 'b', 'c']) notices.take(person, 'r');
    expect(notices.size).toBe(3);
    notices.take('d', 'r');
    expect(notices.size).toBe(3);
    // The oldest was forgotten: told again; the newest are still remembered.
    expect(notices.take('a', 'r')).toBe(true);
    expect(notices.take('d', 'r')).toBe(false);
    time.advance(refusalNoticeWindowMs);
    notices.take('e', 'r');
    expect(notices.size).toBe(1);
  });
});

describe('refusalReason', () => {
  it('names the refusals about the bot, and leaves out failures about the message', () => {
    expect(refusalReason(new ProviderError('no key', { provider: unconfiguredProviderName, kind: 'AUTH' }))).toBe('no model configured');
    expect(refusalReason(new ProviderError('down', { provider: 'anthropic', kind: 'OVERLOADED' }))).toBe('model provider failing (OVERLOADED)');
    expect(refusalReason(new ProviderError('bad key', { provider: 'anthropic', kind: 'AUTH' }))).toBe('model provider failing (AUTH)');
    expect(refusalReason(new BudgetExhaustedError('Not answered: ...', { scope: 'person', period: 'day', cap: 1, spent: 1 }))).toBe('spending cap (person, day)');
    expect(refusalReason(new BudgetExhaustedError('Not answered: ...', { reason: 'unreachable' }))).toBe('spending caps not checked (unreachable)');
    expect(refusalReason(new SpendingPausedError())).toBe('model calls paused');
    expect(refusalReason(new ProviderError('too long', { provider: 'anthropic', kind: 'CONTEXT_OVERFLOW' }))).toBeUndefined();
    expect(refusalReason(new ProviderError('blocked', { provider: 'anthropic', kind: 'CONTENT_BLOCKED' }))).toBeUndefined();
    expect(refusalReason(new Error('something else'))).toBeUndefined();
  });
});

describe('Refusals', () => {
  function setup() {
    const ops = new OpsEvents();
    const events: OpsRecord[] = [];
    ops.subscribe((record) => events.push(record));
    const time = clock();
    const refusals = new Refusals(ops, new RefusalNotices({ now: time.now }));
    const sent: string[] = [];
    const send = (text: string) => {
      sent.push(text);
      return Promise.resolve();
    };
    return { refusals, events, sent, send, time };
  }

  it("tells a person off the allowlist once an hour, and reports every refusal with its reason", async () => {
    const { refusals, events, sent, send } = setup();
    const dmPolicy = { ...config().dmPolicy, telegram: 'allowlist' as const };
    const access = createAccessPolicy(config({ dmPolicy }), createStore({ driver: 'memory' }));
    for (let i = 0; i < 3; i++) {
      const decision = await access.check(dm('8'));
      if (decision.allowed) throw new Error('let in');
      await refusals.access(dm('8'), decision, send);
    }
    expect(sent).toEqual(['Sorry, I only talk with people on my allowlist. Ask an admin of this bot to add you (your id: telegram:8).']);
    expect(events.map((event) => event.type === 'message.refused' && [event.reason, event.told])).toEqual([
      ['not on the allowlist', true],
      ['not on the allowlist', false],
      ['not on the allowlist', false],
    ]);
  });

  it('gives a stranger their pairing code whenever they ask, as before', async () => {
    const { refusals, events, sent, send } = setup();
    const access = createAccessPolicy(config(), createStore({ driver: 'memory' }));
    for (let i = 0; i < 2; i++) {
      const decision = await access.check(dm('9'));
      if (decision.allowed) throw new Error('let in');
      await refusals.access(dm('9'), decision, send);
    }
    expect(sent).toHaveLength(2);
    expect(sent[1]).toBe(sent[0]);
    expect(events.map((event) => event.type)).toEqual(['pairing.requested', 'pairing.requested']);
  });

  it("reports a turn's refusal every time, and says to tell its sender once per reason an hour", () => {
    const { refusals, events, time } = setup();
    expect(refusals.turn(dm('5'), 'spending cap (person, day)')).toBe(true);
    expect(refusals.turn(dm('5'), 'spending cap (person, day)')).toBe(false);
    expect(refusals.turn(dm('5'), 'model calls paused')).toBe(true);
    // A preview on screen is finished with the reason all the same: told.
    expect(refusals.turn(dm('5'), 'model calls paused', true)).toBe(true);
    time.advance(refusalNoticeWindowMs);
    expect(refusals.turn(dm('5'), 'spending cap (person, day)')).toBe(true);
    expect(events.map((event) => event.type === 'message.refused' && [event.conversation, event.reason, event.told])).toEqual([
      ['telegram:dm:5', 'spending cap (person, day)', true],
      ['telegram:dm:5', 'spending cap (person, day)', false],
      ['telegram:dm:5', 'model calls paused', true],
      ['telegram:dm:5', 'model calls paused', true],
      ['telegram:dm:5', 'spending cap (person, day)', true],
    ]);
  });
  it('says files were too large once an hour per person, and reports each time with how many', () => {
    const { refusals, events, time } = setup();
    expect(refusals.files(dm('6'), 2)).toBe(true);
    expect(refusals.files(dm('6'), 1)).toBe(false);
    // Another person, and another reason of the same person, are told at once.
    expect(refusals.files(dm('7'), 1)).toBe(true);
    expect(refusals.turn(dm('6'), 'model calls paused')).toBe(true);
    time.advance(refusalNoticeWindowMs);
    expect(refusals.files(dm('6'), 1)).toBe(true);
    expect(events.filter((event) => event.type === 'files.refused').map((event) => event.type === 'files.refused' && [event.conversation, event.reason, event.files, event.told])).toEqual([
      ['telegram:dm:6', 'file too large', 2, true],
      ['telegram:dm:6', 'file too large', 1, false],
      ['telegram:dm:7', 'file too large', 1, true],
      ['telegram:dm:6', 'file too large', 1, true],
    ]);
  });

  it('tells the sender of a message whose profile does not load once an hour, and reports each', async () => {
    const { refusals, events, sent, send } = setup();
    await refusals.notHandled(dm('4'), send);
    await refusals.notHandled(dm('4'), send);
    expect(sent).toEqual([notHandledReply]);
    expect(notHandledReply).toContain("let the bot's admin know");
    expect(events.map((event) => event.type === 'message.refused' && [event.reason, event.told])).toEqual([
      ['profile not loaded', true],
      ['profile not loaded', false],
    ]);
  });
});
