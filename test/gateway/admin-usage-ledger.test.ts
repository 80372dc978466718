/**
 * The usage ledger, fed by events emitted on a real `OpsEvents` (as the gateway's turns and
 * reviews emit them): sums per day, profile, conversation and kind; written to the store and read
 * back by a new ledger (a restart); bounded in rows a day and days kept; and the usage page's
 * summary with the reviewer's share apart and its SVG charts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { OpsEvents, type OpsEvent, type OpsTokens } from '../../src/gateway/ops/ops-events.ts';
import { otherConversations, UsageLedger } from '../../src/gateway/admin/usage-ledger.ts';
import { summarizeUsage } from '../../src/gateway/admin/usage-summary.ts';
import { createStore, type Store } from '../../src/store/index.ts';
import { createTempHome, removeTempHome } from '../helpers/temp-home.ts';

const tokens = (input: number, output: number, cacheRead = 0, cacheWrite = 0): OpsTokens => ({ input, output, cacheRead, cacheWrite });
const usage = (conversation: string, kind: 'turn' | 'subagent' | 'review', costUsd: number, profile = 'default'): OpsEvent => ({
  type: 'model.usage',
  platform: conversation.split(':')[0],
  conversation,
  profile,
  provider: 'anthropic',
  model: 'claude-sonnet-4-5',
  tokens: tokens(100, 20, 50, 0),
  costUsd,
  kind,
});
const turnEnd = (conversation: string, profile = 'default'): OpsEvent => ({ type: 'turn.end', platform: conversation.split(':')[0], conversation, profile, status: 'ok', durationMs: 900, tokens: tokens(100, 20), costUsd: 0.5 });

const all = { from: '0000-00-00', to: '9999-99-99' };

let home: string | undefined;
let store: Store | undefined;
afterEach(async () => {
  await store?.close();
  store = undefined;
  removeTempHome(home);
  home = undefined;
});

function fsStore(): Store {
  home ??= createTempHome('operator-usage-ledger-');
  return createStore({ driver: 'fs', base: home });
}

describe('the usage ledger', () => {
  it('sums model calls and turns per day, profile, conversation and kind, and reads them back after a restart', async () => {
    store = fsStore();
    const ops = new OpsEvents();
    const ledger = new UsageLedger({ store, flushDelayMs: 60_000 });
    const detach = ledger.attach(ops);
    ops.emit(usage('telegram:dm:1', 'turn', 0.01));
    ops.emit(usage('telegram:dm:1', 'turn', 0.02));
    ops.emit(usage('telegram:dm:1', 'review', 0.005));
    ops.emit(usage('telegram:dm:1', 'subagent', 0.001));
    ops.emit(turnEnd('telegram:dm:1'));
    ops.emit(usage('web:abc', 'turn', 0.03, 'coder'));
    ops.emit({ type: 'message.accepted', platform: 'telegram', conversation: 'telegram:dm:1', scope: 'dm' });
    // The gateway says it stops: what is counted is written.
    ops.emit({ type: 'gateway.stopping' });
    await ledger.flush();
    detach();

    const again = new UsageLedger({ store });
    const rows = await again.rows(all);
    const byKey = new Map(rows.map((row) => [`${row.conversation} ${row.kind}`, row]));
    expect(rows).toHaveLength(4);
    expect(byKey.get('telegram:dm:1 turn')).toMatchObject({ profile: 'default', platform: 'telegram', calls: 2, turns: 1, input: 200, output: 40, cacheRead: 100 });
    expect(byKey.get('telegram:dm:1 turn')!.costUsd).toBeCloseTo(0.03);
    expect(byKey.get('telegram:dm:1 review')).toMatchObject({ calls: 1, turns: 0 });
    expect(byKey.get('telegram:dm:1 subagent')).toMatchObject({ calls: 1 });
    expect(byKey.get('web:abc turn')).toMatchObject({ profile: 'coder', calls: 1 });
    expect(new Set(rows.map((row) => row.day))).toEqual(new Set([new Date().toISOString().slice(0, 10)]));

    // Each conversation's totals, read without a day: what the conversations page shows.
    const totals = await again.totals();
    expect(totals.get('telegram:dm:1')).toMatchObject({ platform: 'telegram', profile: 'default', turns: 1, calls: 4, tokens: 4 * 170 });
    expect(totals.get('telegram:dm:1')!.costUsd).toBeCloseTo(0.036);
    expect(totals.get('telegram:dm:1')!.reviewCostUsd).toBeCloseTo(0.005);
    expect(totals.get('web:abc')).toMatchObject({ profile: 'coder', calls: 1 });
  });

  it('keeps a conversation\'s last activity from its messages, and at most maxConversations totals', async () => {
    store = createStore({ driver: 'memory' });
    const ledger = new UsageLedger({ store, maxConversations: 2 });
    ledger.record({ type: 'message.accepted', platform: 'discord', conversation: 'discord:dm:1', scope: 'dm', at: 1_000 });
    ledger.record({ type: 'message.accepted', platform: 'discord', conversation: 'discord:dm:2', scope: 'dm', at: 2_000 });
    ledger.record({ type: 'message.accepted', platform: 'discord', conversation: 'discord:dm:3', scope: 'dm', at: 3_000 });
    ledger.record({ type: 'message.accepted', platform: 'discord', conversation: 'discord:dm:1', scope: 'dm', at: 4_000 });
    await ledger.flush();
    const totals = await new UsageLedger({ store }).totals();
    expect([...totals.keys()].sort()).toEqual(['discord:dm:1', 'discord:dm:3']);
    expect(totals.get('discord:dm:1')).toMatchObject({ lastAt: 4_000, profile: '', turns: 0, calls: 0 });
  });

  it('adds to a day written before, after a restart, without losing either', async () => {
    store = fsStore();
    const first = new UsageLedger({ store });
    first.record({ ...usage('slack:T1:C1', 'turn', 1), at: Date.now() });
    await first.flush();
    const second = new UsageLedger({ store });
    second.record({ ...usage('slack:T1:C1', 'turn', 2), at: Date.now() });
    await second.flush();
    const rows = await new UsageLedger({ store }).rows(all);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ calls: 2, costUsd: 3 });
  });

  it('keeps at most maxRowsPerDay rows a day (then one merged row per profile and kind), and at most maxDays days', async () => {
    store = createStore({ driver: 'memory' });
    const ledger = new UsageLedger({ store, maxRowsPerDay: 3, maxDays: 2 });
    const day = Date.parse('2026-11-20T12:00:00Z');
    for (let index = 0; index < 6; index++) ledger.record({ ...usage(`telegram:dm:${index}`, 'turn', 1), at: day });
    for (const offset of [1, 2]) ledger.record({ ...usage('telegram:dm:0', 'turn', 1), at: day + offset * 86_400_000 });
    await ledger.flush();
    const rows = await new UsageLedger({ store }).rows(all);
    expect(rows.map((row) => row.day).sort()).toEqual(['2026-11-21', '2026-11-22']);
    expect(await store.list('admin:usage:')).toHaveLength(2);

    const full = new UsageLedger({ store: createStore({ driver: 'memory' }), maxRowsPerDay: 3 });
    for (let index = 0; index < 6; index++) full.record({ ...usage(`telegram:dm:${index}`, 'turn', 1), at: day });
    const kept = await full.rows(all);
    // Three conversations of their own, the other three in the profile's merged row.
    expect(kept).toHaveLength(4);
    expect(kept.find((row) => row.conversation === otherConversations)).toMatchObject({ calls: 3, costUsd: 3 });
  });

  it('summarizes a range per day, profile and conversation, with the reviewer apart and charts as inline SVG', async () => {
    store = createStore({ driver: 'memory' });
    const ledger = new UsageLedger({ store });
    const now = Date.parse('2026-11-26T12:00:00Z');
    ledger.record({ ...usage('telegram:dm:1', 'turn', 0.4), at: now });
    ledger.record({ ...usage('telegram:dm:1', 'review', 0.1), at: now });
    ledger.record({ ...turnEnd('telegram:dm:1'), at: now });
    ledger.record({ ...usage('discord:dm:9', 'turn', 1, 'coder'), at: now - 2 * 86_400_000 });
    ledger.record({ ...usage('discord:dm:9', 'turn', 5, 'coder'), at: now - 40 * 86_400_000 });
    const summary = await summarizeUsage(ledger, 7, now);
    expect(summary.from).toBe('2026-11-20');
    expect(summary.to).toBe('2026-11-26');
    expect(summary.days).toHaveLength(7);
    expect(summary.total.costUsd).toBeCloseTo(1.5);
    expect(summary.total.reviewCostUsd).toBeCloseTo(0.1);
    expect(summary.total.turns).toBe(1);
    expect(summary.days.at(-1)!.costUsd).toBeCloseTo(0.5);
    expect(summary.profiles.map((row) => row.profile)).toEqual(['coder', 'default']);
    expect(summary.conversations[0]).toMatchObject({ conversation: 'discord:dm:9', platform: 'discord', profiles: ['coder'] });
    expect(summary.charts.cost).toMatch(/^<figure class="chart"><svg [^>]*role="img"/);
    expect(summary.charts.cost).toContain('class="series-reviews"');
    expect(summary.charts.tokens).toContain('Tokens per day');
    expect(summary.charts.cost).not.toMatch(/<script|https?:/);
  });
});
