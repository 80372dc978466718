/**
 * Approve-to-continue: a turn a spending cap refused puts one question to the admins (with the
 * three answers as buttons, or as commands where there are none); only an admin's answer counts,
 * and only the first; "one more turn" lets the refused message's turn pass that cap, a raise adds
 * the cap's amount for the rest of its period (kept in the store), and a denial tells the
 * conversation. The questions survive a restart and lapse when the cap resets. Through the real
 * spend gate over a store; the admins' copies and the conversation's messages are recorded.
 */
import { describe, expect, it } from 'vitest';
import type { InboundMessage } from '../../src/channels/types.ts';
import { BudgetExhaustedError } from '../../src/core/errors.ts';
import type { ModelRequest } from '../../src/llm/types.ts';
import type { CopyChoices } from '../../src/gateway/approval-desk.ts';
import { budgetCommand } from '../../src/gateway/budget/budget-command.ts';
import { gatewaySpendGate } from '../../src/gateway/budget/gateway-spending.ts';
import { askChoices, isAskable } from '../../src/gateway/budget/spend-asks.ts';
import { budgetsSchema } from '../../src/gateway/config/budget-schema.ts';
import { createStore } from '../../src/store/unstorage-store.ts';
import type { Store } from '../../src/store/store.ts';
import type { TurnContext } from '../../src/tools/tool.ts';

const member: TurnContext = { sessionKey: 'telegram:dm:7', platform: 'telegram', senderId: '7', admin: false, scheduled: false, turnId: '501' };

const message: InboundMessage = {
  id: '501',
  dedupeKey: 'telegram:update:9001',
  sessionKey: 'telegram:dm:7',
  address: { platform: 'telegram', conversationId: '7' },
  scope: 'dm',
  sender: { id: '7', name: 'Mo' },
  text: 'summarise the thread',
  attachments: [],
  mentioned: true,
  receivedAt: 1,
  raw: { update_id: 9001 },
};

/** A request whose worst case is about $0.49 at claude-sonnet-4-6's prices. */
const request: ModelRequest = { model: 'claude-sonnet-4-6', systemPrompt: 'x'.repeat(4_000), messages: [{ role: 'user', content: [{ type: 'text', text: 'hello' }], timestamp: 0 }] };

/** A gateway's spending over `store` with a person's cap of $1, its admins' copies and the conversation recorded. */
function spendingOver(store: Store, now = () => new Date('2026-11-30T10:00:00Z')) {
  const copies: { text: string; id: string; choices?: CopyChoices }[] = [];
  const told: string[] = [];
  const resubmitted: InboundMessage[] = [];
  let reachable = 1;
  const spending = gatewaySpendGate({
    store,
    budgets: () => budgetsSchema.parse({ person: { day: 1 } }),
    log: () => {},
    now,
    asks: {
      copies: {
        async send(text, id, _except, choices) {
          copies.push({ text, id, ...(choices && { choices }) });
          return reachable;
        },
      },
      resubmit: async (again) => void resubmitted.push(again),
      tell: async (_address, text) => void told.push(text),
    },
  });
  return { spending, copies, told, resubmitted, unreachable: () => (reachable = 0), now };
}

/** Spends $0.75 for the member, then has the next call refused; resolves to the refusal. */
async function refusedAfterSpending(spending: ReturnType<typeof spendingOver>['spending']): Promise<BudgetExhaustedError> {
  (await spending.reserve(request, member)).settle({ input: 200_000, output: 10_000, cacheRead: 0, cacheWrite: 0 });
  return spending.reserve(request, member).then(
    () => {
      throw new Error('expected a refusal');
    },
    (error: unknown) => error as BudgetExhaustedError,
  );
}

describe('a spending cap asks the admins', () => {
  it('asks once per conversation and cap, with the three answers; the refusal of a kill switch or a run is not asked', async () => {
    const { spending, copies } = spendingOver(createStore({ driver: 'memory' }));
    const refusal = await refusedAfterSpending(spending);
    expect(isAskable(refusal)).toBe(true);
    expect(await spending.asks!.refused(message, refusal)).toBe('An admin has been asked to allow more.');
    expect(await spending.asks!.refused({ ...message, id: '502', text: 'and now?' }, refusal)).toBe('An admin has been asked to allow more.');
    expect(copies).toHaveLength(1);
    expect(copies[0]!.text).toMatch(/^A spending cap stopped a turn in telegram:dm:7, for Mo \(telegram:7\): this person's spending cap of \$1\.00 a day is reached/);
    expect(copies[0]!.choices).toEqual(askChoices(copies[0]!.id, 1, 'day'));
    expect(copies[0]!.choices!.buttons.flat().map((button) => button.label)).toEqual(['Allow one more turn', 'Deny', "Raise today's cap by $1.00"]);
    expect(copies[0]!.choices!.commands).toBe(`Answer /budget allow ${copies[0]!.id} (one more turn), /budget raise ${copies[0]!.id} (raise today's cap by $1.00) or /budget deny ${copies[0]!.id}.`);
    expect(isAskable(new BudgetExhaustedError('paused', { paused: true }))).toBe(false);
    expect(isAskable(new BudgetExhaustedError('run', { scope: 'job j1 run 5', period: 'run', cap: 1 }))).toBe(false);
  });

  it("lets only an admin answer, once: one more turn passes that cap for the refused message's turn alone", async () => {
    const { spending, copies, resubmitted } = spendingOver(createStore({ driver: 'memory' }));
    await spending.asks!.refused(message, await refusedAfterSpending(spending));
    await spending.asks!.refused({ ...message, id: '502', dedupeKey: 'telegram:update:9002', text: 'and now?' }, await refusedAfterSpending(spending).catch((error: BudgetExhaustedError) => error));
    const { id } = copies[0]!;
    expect(await spending.asks!.answer(id, 'once', { id: '7', admin: false })).toBe('Only an admin can answer this.');
    expect(await budgetCommand(spending, `allow ${id}`, member)).toBe('Only an admin can answer this.');
    expect(resubmitted).toEqual([]);
    expect(await spending.asks!.answer(id, 'once', { id: '1', admin: true })).toBe('Allowed one more turn in telegram:dm:7; the message is answered now.');
    expect(await spending.asks!.answer(id, 'deny', { id: '2', admin: true })).toBe('That was answered already, or its cap has reset.');
    // The latest refused message is the one answered, as a new delivery of it.
    expect(resubmitted).toEqual([{ ...message, id: '502', text: 'and now?', dedupeKey: `telegram:update:9002#budget-${id}`, raw: undefined }]);
    await expect(spending.reserve(request, { ...member, turnId: '502' })).resolves.toBeDefined();
    await expect(spending.reserve(request, { ...member, turnId: '503' })).rejects.toBeInstanceOf(BudgetExhaustedError);
  });

  it("raises the cap by its amount for the rest of the day, kept across a restart, and answers the message", async () => {
    const store = createStore({ driver: 'memory' });
    const first = spendingOver(store);
    await first.spending.asks!.refused(message, await refusedAfterSpending(first.spending));
    const { id } = first.copies[0]!;
    const admin = { ...member, senderId: '1', admin: true };
    expect(await budgetCommand(first.spending, `raise ${id}`, admin)).toBe("Raised: person telegram:7's cap is $2.00 today; the message is answered now.");
    expect(first.resubmitted).toHaveLength(1);
    const restarted = spendingOver(store);
    const ticket = await restarted.spending.reserve(request, { ...member, turnId: '777' });
    ticket.settle({ input: 200_000, output: 10_000, cacheRead: 0, cacheWrite: 0 });
    // $1.50 of $2.00 spent: the next worst case ($0.49) still fits; then $2.25 does not.
    (await restarted.spending.reserve(request, member)).settle({ input: 200_000, output: 10_000, cacheRead: 0, cacheWrite: 0 });
    await expect(restarted.spending.reserve(request, member)).rejects.toThrow("this person's spending cap of $2.00 a day is reached ($2.25 spent");
  });

  it('tells the conversation a denial; a question survives a restart and lapses with its day; nobody reachable asks nobody', async () => {
    const store = createStore({ driver: 'memory' });
    const first = spendingOver(store);
    await first.spending.asks!.refused(message, await refusedAfterSpending(first.spending));
    const { id } = first.copies[0]!;
    const restarted = spendingOver(store);
    expect((await restarted.spending.asks!.open()).map((ask) => ask.id)).toEqual([id]);
    expect(await restarted.spending.asks!.answer(id, 'deny', { id: '1', admin: true })).toBe('Denied: telegram:dm:7 stays at its cap.');
    expect(restarted.told).toEqual(['An admin kept the spending cap: it resets at 2026-12-01 00:00 UTC.']);
    expect(restarted.resubmitted).toEqual([]);

    const later = spendingOver(createStore({ driver: 'memory' }));
    const refusal = await refusedAfterSpending(later.spending);
    later.unreachable();
    expect(await later.spending.asks!.refused(message, refusal)).toBeUndefined();
    expect(await later.spending.asks!.open()).toEqual([]);
  });

  it("drops a question once its cap's day is over, and refuses a usage that is not one", async () => {
    const store = createStore({ driver: 'memory' });
    const first = spendingOver(store);
    await first.spending.asks!.refused(message, await refusedAfterSpending(first.spending));
    await store.set('budget-asks', [{ ...(await first.spending.asks!.open())[0]!, periodKey: '2026-11-29' }]);
    const nextDay = spendingOver(store);
    expect(await nextDay.spending.asks!.open()).toEqual([]);
    expect(await budgetCommand(nextDay.spending, 'allow', member)).toBe('Usage: /budget [pause | resume | allow ID | raise ID | deny ID]');
    expect(await budgetCommand(nextDay.spending, 'allow 1234abcd', { ...member, admin: true })).toBe('That was answered already, or its cap has reset.');
  });
});
