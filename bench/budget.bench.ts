/**
 * Spending caps, per model call (issue 35): what the check adds to a call. The gate reserves a
 * call's worst case on every cap it counts for (here all four: the gateway's day and month, the
 * conversation's day, the person's day), then settles it at the real cost, the store written
 * behind (an in-memory store, as the filesystem store's writes are synchronous and small too).
 * The floor is a gate that checks nothing (a call made without caps); an admin's call in their own
 * direct messages, with no cap of theirs, is still counted on the gateway's day and month (what
 * `operator budget status` shows), and a scheduled job's on its day and run besides.
 */
import type { SpendGate } from '../src/agent/spend-gate.ts';
import { budgetGate } from '../src/gateway/budget/budget-gate.ts';
import { SpendBook } from '../src/gateway/budget/spend-book.ts';
import { budgetsSchema } from '../src/gateway/config/budget-schema.ts';
import type { ModelRequest } from '../src/llm/types.ts';
import { createStore } from '../src/store/unstorage-store.ts';
import type { TurnContext } from '../src/tools/tool.ts';
import { median, sample, type BenchResult } from './lib.ts';

const request: ModelRequest = {
  model: 'claude-sonnet-4-6',
  systemPrompt: 'You are a helpful assistant. '.repeat(400),
  messages: Array.from({ length: 20 }, (_, index) => ({ role: 'user' as const, content: [{ type: 'text' as const, text: `message ${index} `.repeat(40) }], timestamp: 0 })),
  maxTokens: 4_096,
};
const usage = { input: 3_000, output: 200, cacheRead: 9_000, cacheWrite: 0 };
const member: TurnContext = { sessionKey: 'telegram:group:-100', platform: 'telegram', senderId: '7', admin: false, scheduled: false };
const owner: TurnContext = { sessionKey: 'telegram:dm:1', platform: 'telegram', senderId: '1', admin: true, scheduled: false };
const job: TurnContext = { ...member, scheduled: true, job: { id: 'k3v9x2ab', run: '2026-11-30T09:00:00.000Z' } };

export default async function budgetBench(): Promise<BenchResult[]> {
  // Caps high enough that no call is refused: what is measured is the check itself.
  const budgets = budgetsSchema.parse({ gateway: { day: 1e6, month: 1e6 }, conversation: { day: 1e6 }, person: { day: 1e6 } });
  const capped: SpendGate = budgetGate(new SpendBook({ store: createStore({ driver: 'memory' }), log: () => {} }), () => budgets);
  const open = budgetGate(new SpendBook({ store: createStore({ driver: 'memory' }), log: () => {} }), () => budgetsSchema.parse({}));
  const none: SpendGate = { reserve: async () => ({ settle: () => {} }) };
  const call = async (gate: SpendGate, turn: TurnContext) => (await gate.reserve(request, turn)).settle(usage);
  const checked: number[] = [];
  const counted: number[] = [];
  const jobs: number[] = [];
  const floor: number[] = [];
  for (let round = 0; round < 5; round++) {
    floor.push(median(await sample(2_000, () => call(none, owner))));
    checked.push(median(await sample(2_000, () => call(capped, member))));
    counted.push(median(await sample(2_000, () => call(open, owner))));
    jobs.push(median(await sample(2_000, () => call(capped, job))));
  }
  const cost = median(checked) - median(floor);
  const jobCost = median(jobs) - median(floor);
  return [
    { name: 'a model call checked against four caps: reserve and settle (median)', value: median(checked), unit: 'ms' },
    { name: "an admin's call with no cap of theirs, counted on the gateway's day and month", value: median(counted), unit: 'ms' },
    { name: "a scheduled job's call: four caps and the job's day and run", value: median(jobs), unit: 'ms' },
    { name: 'the same call through a gate that checks nothing (floor)', value: median(floor), unit: 'ms' },
    { name: 'the budget check per model call, four caps (difference)', value: cost, unit: 'ms', target: '<= 0.05 ms', pass: cost <= 0.05 },
    { name: "the budget check per model call, a job's six lines (difference)", value: jobCost, unit: 'ms', target: '<= 0.05 ms', pass: jobCost <= 0.05 },
  ];
}
