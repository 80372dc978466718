/**
 * Spending caps: which caps a call counts for (the defaults: a person who is not an admin 1 a day,
 * a group 5 a day), its worst case, and the spend book: a call goes out only if every cap has room
 * for its worst case, concurrent calls never overshoot, settled spend is kept across a restart and
 * a new UTC day starts at zero. The gateway's own day and month are counted even without a cap.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { BudgetExhaustedError } from '../../src/core/errors.ts';
import { getModelInfo } from '../../src/llm/catalog.ts';
import type { ModelRequest } from '../../src/llm/types.ts';
import { budgetGate, countedLines, refusalText, spendLines, worstCaseCost, type SpendReport } from '../../src/gateway/budget/budget-gate.ts';
import { budgetCommand, budgetReport } from '../../src/gateway/budget/budget-command.ts';
import { gatewaySpendGate } from '../../src/gateway/budget/gateway-spending.ts';
import { SpendingPausedError } from '../../src/gateway/budget/spending-paused.ts';
import { compactEvery, SpendBook, type SpendLine } from '../../src/gateway/budget/spend-book.ts';
import { overviewText, spendingOverview } from '../../src/gateway/budget/spending-overview.ts';
import { budgetsFor, budgetsSchema, profileBudgetsSchema } from '../../src/gateway/config/budget-schema.ts';
import { failureReply } from '../../src/gateway/failure-reply.ts';
import { createStore } from '../../src/store/unstorage-store.ts';
import type { TurnContext } from '../../src/tools/tool.ts';

const none = budgetsSchema.parse({});

function turnOf(sessionKey: string, admin: boolean, senderId = '7'): TurnContext {
  return { sessionKey, platform: 'telegram', senderId, admin, scheduled: false };
}

function request(maxTokens?: number): ModelRequest {
  return { model: 'claude-sonnet-4-6', systemPrompt: 'x'.repeat(4_000), messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }], timestamp: 0 }], ...(maxTokens ? { maxTokens } : {}) };
}

const log = () => {};

describe('which caps a call counts for', () => {
  it('by default: a person who is not an admin 1 a day, a group 5 a day; admins and the gateway none', () => {
    expect(spendLines(none, turnOf('telegram:dm:7', false))).toEqual([{ scope: 'person telegram:7', period: 'day', cap: 1 }]);
    expect(spendLines(none, turnOf('telegram:group:-100', false))).toEqual([
      { scope: 'conversation telegram:group:-100', period: 'day', cap: 5 },
      { scope: 'person telegram:7', period: 'day', cap: 1 },
    ]);
    expect(spendLines(none, turnOf('telegram:dm:1', true, '1'))).toEqual([]);
    expect(spendLines(none, turnOf('telegram:group:-100', true, '1'))).toEqual([{ scope: 'conversation telegram:group:-100', period: 'day', cap: 5 }]);
    expect(spendLines(none, undefined)).toEqual([]);
  });

  it('as configured: the gateway per day and month, a conversation and a person per day', () => {
    const budgets = budgetsSchema.parse({ gateway: { day: 50, month: 500 }, conversation: { day: 2 }, person: { day: 0.5 } });
    expect(spendLines(budgets, turnOf('telegram:dm:7', false))).toEqual([
      { scope: 'gateway', period: 'day', cap: 50 },
      { scope: 'gateway', period: 'month', cap: 500 },
      { scope: 'conversation telegram:dm:7', period: 'day', cap: 2 },
      { scope: 'person telegram:7', period: 'day', cap: 0.5 },
    ]);
    expect(() => budgetsSchema.parse({ person: { day: -1 } })).toThrow();
    expect(() => budgetsSchema.parse({ people: {} })).toThrow();
  });

  it("a profile's own caps take the place of the top-level conversation and person caps", async () => {
    const budgets = budgetsSchema.parse({ gateway: { day: 50 }, person: { day: 2 } });
    const team = profileBudgetsSchema.parse({ conversation: { day: 20 }, person: { day: 4 } });
    expect(spendLines(budgetsFor(budgets, team), turnOf('telegram:group:-100', false))).toEqual([
      { scope: 'gateway', period: 'day', cap: 50 },
      { scope: 'conversation telegram:group:-100', period: 'day', cap: 20 },
      { scope: 'person telegram:7', period: 'day', cap: 4 },
    ]);
    expect(budgetsFor(budgets, undefined)).toBe(budgets);
    expect(spendLines(budgetsFor(budgets, profileBudgetsSchema.parse({})), turnOf('telegram:dm:7', false))).toEqual([
      { scope: 'gateway', period: 'day', cap: 50 },
      { scope: 'person telegram:7', period: 'day', cap: 2 },
    ]);
    expect(() => profileBudgetsSchema.parse({ gateway: { day: 1 } })).toThrow();
    // The gate reads the caps of the turn's profile.
    const spending = gatewaySpendGate({ store: createStore({ driver: 'memory' }), budgets: (profile) => (profile === 'team' ? budgetsFor(budgets, team) : budgets), log });
    expect(await budgetReport(spending, { ...turnOf('telegram:group:-100', false), profile: 'team' })).toContain('this conversation: $0.00 of $20.00 this day');
    expect(await budgetReport(spending, turnOf('telegram:group:-100', false))).toContain('this conversation: $0.00 of $5.00 this day');
  });

  it("a profile's own job, pipeline-run and notice settings take the place of the top-level ones, each on its own", () => {
    const budgets = budgetsSchema.parse({ job: { run: 0.5, day: 2 }, pipelineRun: { run: 3 }, botTurns: 4 });
    const night = budgetsFor(budgets, profileBudgetsSchema.parse({ job: { day: 10 }, pipelineRun: { run: 6 }, warnAt: 0.5 }));
    expect(night.job).toEqual({ run: 0.5, day: 10 });
    expect(night.pipelineRun).toEqual({ run: 6 });
    expect(night.warnAt).toBe(0.5);
    expect(night.botTurns).toBe(4);
    const job = { ...turnOf('telegram:dm:1', true, '1'), scheduled: true, job: { id: 'k3v9x2ab', run: '2026-11-30T09:00:00.000Z' } };
    expect(spendLines(night, job)).toEqual([
      { scope: 'job k3v9x2ab', period: 'day', cap: 10 },
      { scope: 'job k3v9x2ab run 2026-11-30T09:00:00.000Z', period: 'run', cap: 0.5 },
    ]);
    expect(() => profileBudgetsSchema.parse({ botTurns: 2 })).toThrow();
    expect(() => profileBudgetsSchema.parse({ warnAt: 2 })).toThrow();
  });

  it("reserve a call's worst case: its input uncached and all of max_tokens", () => {
    const info = getModelInfo('claude-sonnet-4-6')!;
    // 1,000 tokens of prompt and a little more, 1,000 output tokens at $3 and $15 a million.
    expect(worstCaseCost(request(1_000), info)).toBeGreaterThan(0.003 + 0.015);
    expect(worstCaseCost(request(1_000), info)).toBeLessThan(0.0035 + 0.015);
    // Without max_tokens: the catalog's, capped at 32,000 as the providers do.
    expect(worstCaseCost(request(), info)).toBeGreaterThan(32_000 * 15e-6);
    expect(worstCaseCost(request(), undefined)).toBe(0);
  });
});

describe('the spend book', () => {
  const line: SpendLine = { scope: 'conversation telegram:dm:7', period: 'day', cap: 1 };

  it('lets a call out only if every cap has room, and settles it at its real cost', async () => {
    const book = new SpendBook({ store: createStore({ driver: 'memory' }), log });
    const person: SpendLine = { scope: 'person telegram:7', period: 'day', cap: 0.5 };
    const first = await book.reserve([line, person], 0.4);
    expect('settle' in first).toBe(true);
    const second = await book.reserve([line, person], 0.4);
    expect(second).toEqual({ line: person, spent: 0, reserved: 0.4 });
    if ('settle' in first) first.settle(0.1);
    expect(await book.spent('person telegram:7', 'day')).toBeCloseTo(0.1);
    expect(await book.spent('conversation telegram:dm:7', 'day')).toBeCloseTo(0.1);
    expect('settle' in (await book.reserve([line, person], 0.4))).toBe(true);
  });

  it('never lets concurrent calls overshoot a cap', async () => {
    const book = new SpendBook({ store: createStore({ driver: 'memory' }), log });
    const held = await Promise.all(Array.from({ length: 20 }, () => book.reserve([line], 0.3)));
    const out = held.filter((hold) => 'settle' in hold);
    expect(out).toHaveLength(3);
    // Each spent its whole reservation: exactly at most the cap.
    for (const hold of out) if ('settle' in hold) hold.settle(0.3);
    expect(await book.spent(line.scope, 'day')).toBeCloseTo(0.9);
    expect('settle' in (await book.reserve([line], 0.3))).toBe(false);
    expect('settle' in (await book.reserve([line], 0.1))).toBe(true);
  });

  it('writes a count without a cap behind, with the others of its moment, and a capped line at once', async () => {
    const store = createStore({ driver: 'memory' });
    const now = () => new Date('2026-11-30T10:00:00Z');
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    onTestFinished(() => void vi.useRealTimers());
    const book = new SpendBook({ store, log, now, countEveryMs: 5_000 });
    const counted: SpendLine = { scope: 'gateway', period: 'day', cap: Number.POSITIVE_INFINITY };
    for (let call = 0; call < 3; call++) {
      const hold = await book.reserve([line, counted], 0.1);
      if ('settle' in hold) hold.settle(0.1);
    }
    await new Promise((resolve) => setImmediate(resolve));
    // The capped line's totals are in its log, one a settle.
    expect((await store.readLog('spend-log:2026-11-30:conversation%20telegram%3Adm%3A7')).map(Number)).toEqual([0.1, 0.2, expect.closeTo(0.3)]);
    expect(await store.get('spend:gateway:2026-11-30')).toBeNull();
    vi.advanceTimersByTime(5_000);
    await new Promise((resolve) => setImmediate(resolve));
    expect(await store.get('spend:gateway:2026-11-30')).toBeCloseTo(0.3);
  });

  it('keeps settled spend across a restart, and starts a new UTC day at zero', async () => {
    const store = createStore({ driver: 'memory' });
    let now = new Date('2026-11-30T23:59:00Z');
    const book = new SpendBook({ store, log, now: () => now });
    const hold = await book.reserve([line], 0.6);
    if ('settle' in hold) hold.settle(0.6);
    await new Promise((resolve) => setImmediate(resolve));
    const restarted = new SpendBook({ store, log, now: () => now });
    expect(await restarted.spent(line.scope, 'day')).toBeCloseTo(0.6);
    expect(await restarted.reserve([line], 0.6)).toEqual({ line, spent: 0.6, reserved: 0 });
    now = new Date('2026-12-01T00:00:01Z');
    expect(await restarted.spent(line.scope, 'day')).toBe(0);
    expect('settle' in (await restarted.reserve([line], 0.6))).toBe(true);
  });
});

describe("the spend book's logs", () => {
  const line: SpendLine = { scope: 'person telegram:7', period: 'day', cap: 1_000 };
  const now = () => new Date('2026-11-30T10:00:00Z');
  const valueKey = 'spend:person%20telegram%3A7:2026-11-30';
  const logKey = 'spend-log:2026-11-30:person%20telegram%3A7';
  const settle = async (book: SpendBook, amount: number) => {
    const hold = await book.reserve([line], amount);
    if (!('settle' in hold)) throw new Error('refused');
    hold.settle(amount);
  };

  it('folds a line\'s log into its value every so many settles, and a restart reads both', async () => {
    const home = mkdtempSync(join(tmpdir(), 'operator-spend-logs-'));
    onTestFinished(() => rmSync(home, { recursive: true, force: true }));
    const store = createStore({ driver: 'fs', base: home });
    onTestFinished(() => store.close());
    const book = new SpendBook({ store, log, now });
    for (let call = 0; call < compactEvery + 2; call++) await settle(book, 0.01);
    await book.flush();
    expect(await store.get<number>(valueKey)).toBeCloseTo(compactEvery * 0.01);
    expect((await store.readLog(logKey)).map(Number)).toEqual([expect.closeTo((compactEvery + 1) * 0.01), expect.closeTo((compactEvery + 2) * 0.01)]);
    const restarted = new SpendBook({ store, log, now });
    expect(await restarted.spent(line.scope, 'day')).toBeCloseTo((compactEvery + 2) * 0.01);
  });

  it('takes the larger of the value and the log: a fold a crash cut short, a torn last total', async () => {
    const store = createStore({ driver: 'memory' });
    // The value was written and the log not yet emptied.
    await store.set(valueKey, 2.5);
    await store.append(logKey, '2.4');
    await store.append(logKey, '2.5');
    expect(await new SpendBook({ store, log, now }).spent(line.scope, 'day')).toBe(2.5);
    // Totals appended after the last fold, the last one torn.
    await store.append(logKey, '2.75');
    await store.append(logKey, '2.');
    await store.append(logKey, 'x');
    expect(await new SpendBook({ store, log, now }).spent(line.scope, 'day')).toBe(2.75);
  });

  it('never loses a total appended while a fold empties the log', async () => {
    const store = createStore({ driver: 'memory' });
    const book = new SpendBook({ store, log, now });
    // The fold and the settles after it are not awaited between them.
    for (let call = 0; call < compactEvery + 3; call++) {
      const hold = await book.reserve([line], 0.01);
      if ('settle' in hold) hold.settle(0.01);
    }
    await book.flush();
    expect(await new SpendBook({ store, log, now }).spent(line.scope, 'day')).toBeCloseTo((compactEvery + 3) * 0.01);
  });

  it('sets the value at each settle where asked to (a Durable Object)', async () => {
    const store = createStore({ driver: 'memory' });
    const book = new SpendBook({ store, log, now, logs: false });
    await settle(book, 0.2);
    await book.flush();
    expect(await store.get(valueKey)).toBe(0.2);
    expect(await store.readLog(logKey)).toEqual([]);
  });
});

describe('the gate', () => {
  it('refuses a call whose worst case does not fit, saying which cap, what was spent and when it resets', async () => {
    const book = new SpendBook({ store: createStore({ driver: 'memory' }), log, now: () => new Date('2026-11-30T10:00:00Z') });
    const gate = budgetGate(book, () => budgetsSchema.parse({ conversation: { day: 0.05 } }), { now: () => new Date('2026-11-30T10:00:00Z') });
    const turn = turnOf('telegram:dm:1', true, '1');
    const ticket = await gate.reserve(request(1_000), turn);
    ticket.settle({ input: 10_000, output: 1_000, cacheRead: 0, cacheWrite: 0 });
    expect(await book.spent('conversation telegram:dm:1', 'day')).toBeCloseTo(0.045);
    const refused = await gate.reserve(request(1_000), turn).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(BudgetExhaustedError);
    expect(failureReply(refused)).toBe("Not answered: this conversation's spending cap of $0.0500 a day is reached ($0.0450 spent, $0.00 in calls under way); it resets at 2026-12-01 00:00 UTC.");
    // A model without prices in the catalog is not counted.
    await expect(gate.reserve({ ...request(1_000), model: 'no-such-model' }, turn)).resolves.toBeDefined();
    expect(refusalText({ line: { scope: 'gateway', period: 'month', cap: 500 }, spent: 500, reserved: 0 }, new Date('2026-11-30T10:00:00Z'))).toBe(
      "the gateway's spending cap of $500.00 a month is reached ($500.00 spent, $0.00 in calls under way); it resets at 2026-12-01 00:00 UTC.",
    );
  });
});

describe("the gateway's own spend", () => {
  it('is counted per day and month without a gateway cap, and never refuses a call', async () => {
    const store = createStore({ driver: 'memory' });
    const now = () => new Date('2026-11-30T10:00:00Z');
    const book = new SpendBook({ store, log, now });
    const reports: SpendReport[] = [];
    // An admin in a direct conversation with no cap set: before, nothing was counted at all.
    const gate = budgetGate(book, () => none, { now, report: (report) => reports.push(report) });
    for (let call = 0; call < 3; call++) {
      const ticket = await gate.reserve(request(), turnOf('telegram:dm:1', true, '1'));
      ticket.settle({ input: 100_000, output: 1_000, cacheRead: 0, cacheWrite: 0 });
    }
    expect(await book.spent('gateway', 'day')).toBeCloseTo(3 * 0.315);
    expect(await book.spent('gateway', 'month')).toBeCloseTo(3 * 0.315);
    expect(reports).toEqual(Array.from({ length: 3 }, () => ({ type: 'spent', scopes: ['gateway'], costUsd: expect.closeTo(0.315) })));
    // Kept in the store, where `operator budget status` reads it with no gateway running: written
    // behind (a count without a cap refuses nothing), at the latest when the gateway stops.
    await new Promise((resolve) => setImmediate(resolve));
    expect(await new SpendBook({ store, log, now }).spent('gateway', 'month')).toBe(0);
    await book.flush();
    expect(await new SpendBook({ store, log, now }).spent('gateway', 'month')).toBeCloseTo(3 * 0.315);
    // A configured gateway cap is counted once, as itself.
    const capped = budgetGate(book, () => budgetsSchema.parse({ gateway: { day: 1 } }), { now });
    await expect(capped.reserve(request(), turnOf('telegram:dm:1', true, '1'))).rejects.toBeInstanceOf(BudgetExhaustedError);
    expect(countedLines(spendLines(budgetsSchema.parse({ gateway: { day: 1 } }), undefined))).toEqual([
      { scope: 'gateway', period: 'day', cap: 1 },
      { scope: 'gateway', period: 'month', cap: Number.POSITIVE_INFINITY },
    ]);
  });
});

describe('the spending overview (operator budget status, the console)', () => {
  it('says whether calls are paused, what the gateway spent, and the caps in force with the defaults and profiles named', async () => {
    const store = createStore({ driver: 'memory' });
    const budgets = budgetsSchema.parse({ gateway: { day: 50, month: 500 }, conversation: { day: 4 }, job: { run: 1, day: 3 }, pipelineRun: { run: 2 } });
    const team = profileBudgetsSchema.parse({ person: { day: 0.5 }, job: { day: 6 }, pipelineRun: { run: 2 } });
    const spending = gatewaySpendGate({ store, budgets: (profile) => (profile === 'team' ? budgetsFor(budgets, team) : budgets), log });
    const ticket = await spending.reserve(request(1_000), turnOf('telegram:dm:1', true, '1'));
    ticket.settle({ input: 100_000, output: 1_000, cacheRead: 0, cacheWrite: 0 });
    await spending.pause();
    const now = new Date();
    const overview = await spendingOverview(spending, ['team'], now);
    expect(overview).toMatchObject({ paused: true, day: now.toISOString().slice(0, 10), month: now.toISOString().slice(0, 7), uncapped: ['admins as persons'] });
    expect(overviewText(overview)).toBe(
      [
        'Model calls are paused: messages wait until they resume (operator budget resume, or /budget resume in a chat).',
        `The gateway spent $0.3150 today (${overview.day}) and $0.3150 this month (${overview.month}), UTC.`,
        'Caps in force:',
        '- the gateway: $50.00 a day, $500.00 a month',
        '- each conversation: $4.00 a day',
        '- each person who is not an admin: $1.00 a day (default)',
        '- each run of a scheduled job: $1.00 a run',
        '- each scheduled job: $3.00 a day',
        '- each pipeline run: $2.00 a run',
        '- each person of profile team who is not an admin: $0.5000 a day',
        '- each scheduled job of profile team: $6.00 a day',
        'No cap: admins as persons.',
      ].join('\n'),
    );
  });
});

describe('/budget', () => {
  it("shows a member their own and the conversation's spend, an admin the gateway's too", async () => {
    const spending = gatewaySpendGate({ store: createStore({ driver: 'memory' }), budgets: () => budgetsSchema.parse({ gateway: { day: 50 } }), log });
    const member = turnOf('telegram:group:-100', false);
    (await spending.reserve(request(1_000), member)).settle({ input: 10_000, output: 1_000, cacheRead: 0, cacheWrite: 0 });
    expect(await budgetReport(spending, member)).toBe(
      ['Spending (UTC):', '- this conversation: $0.0450 of $5.00 this day', '- you (telegram:7): $0.0450 of $1.00 this day'].join('\n'),
    );
    expect(await budgetReport(spending, turnOf('telegram:group:-100', true, '1'))).toBe(
      ['Spending (UTC):', '- the gateway: $0.0450 of $50.00 this day', '- this conversation: $0.0450 of $5.00 this day'].join('\n'),
    );
    const open = gatewaySpendGate({ store: createStore({ driver: 'memory' }), budgets: () => none, log });
    expect(await budgetReport(open, turnOf('telegram:dm:1', true, '1'))).toBe('No spending cap applies here (see docs/budgets.md).');
  });
});

describe('the kill switch', () => {
  it('is an admin\'s; while paused every call is refused; it is kept in the store and tells its listeners when resumed', async () => {
    const store = createStore({ driver: 'memory' });
    const spending = gatewaySpendGate({ store, budgets: () => none, log });
    const member = turnOf('telegram:group:-100', false);
    const admin = turnOf('telegram:dm:1', true, '1');
    expect(await budgetCommand(spending, 'pause', member)).toBe('Only an admin can pause or resume model calls.');
    expect(await budgetCommand(spending, 'stop', admin)).toBe('Usage: /budget [pause | resume | allow ID | raise ID | deny ID]');
    expect(spending.paused).toBe(false);
    let resumed = 0;
    spending.onResume(() => resumed++);
    expect(await budgetCommand(spending, 'pause', admin)).toMatch(/^Paused all model calls/);
    await expect(spending.reserve(request(1_000), admin)).rejects.toBeInstanceOf(SpendingPausedError);
    expect(await budgetCommand(spending, '', member)).toMatch(/^Model calls are paused/);
    // A restarted gateway reads the switch back.
    const restarted = gatewaySpendGate({ store, budgets: () => none, log });
    await restarted.load();
    expect(restarted.paused).toBe(true);
    expect(await budgetCommand(spending, 'resume', admin)).toBe('Model calls go on; the messages that waited are answered now.');
    expect(resumed).toBe(1);
    await expect(spending.reserve(request(1_000), admin)).resolves.toBeDefined();
    await restarted.load();
    expect(restarted.paused).toBe(false);
  });
});

describe('the notice near a cap', () => {
  it('is given once a day per cap past warnAt, also across a restart', async () => {
    const store = createStore({ driver: 'memory' });
    const budgets = () => budgetsSchema.parse({ conversation: { day: 0.05 }, warnAt: 0.8 });
    const spending = gatewaySpendGate({ store, budgets, log });
    const turn = turnOf('telegram:dm:1', true, '1');
    (await spending.reserve(request(100), turn)).settle({ input: 10_000, output: 0, cacheRead: 0, cacheWrite: 0 });
    expect(await spending.warning(turn)).toBeUndefined();
    (await spending.reserve(request(100), turn)).settle({ input: 4_000, output: 0, cacheRead: 0, cacheWrite: 0 });
    expect(await spending.warning(turn)).toBe('Heads-up: This conversation has spent $0.0420 of its $0.0500 daily cap (84%); at the cap I stop answering until it resets (/budget shows it).');
    expect(await spending.warning(turn)).toBeUndefined();
    expect(await gatewaySpendGate({ store, budgets, log }).warning(turn)).toBeUndefined();
  });
});
