/**
 * The metrics as Prometheus reads them: events counted (also those from before prom-client
 * loaded), live gauges read at scrape time, labels that never name a conversation or a person;
 * spending caps' refusals and spend by kind of cap, from the real gate's reports.
 */
import { describe, expect, it } from 'vitest';
import { OpsEvents } from '../../../src/gateway/ops/ops-events.ts';
import { OpsMetrics } from '../../../src/gateway/ops/ops-metrics.ts';
import { createMetricsRoute } from '../../../src/gateway/ops/metrics-route.ts';
import { budgetGate } from '../../../src/gateway/budget/budget-gate.ts';
import { spendEvent } from '../../../src/gateway/budget/gateway-spending.ts';
import { SpendBook } from '../../../src/gateway/budget/spend-book.ts';
import { budgetsSchema } from '../../../src/gateway/config/budget-schema.ts';
import { createStore } from '../../../src/store/unstorage-store.ts';

const tokens = { input: 1000, output: 200, cacheRead: 300, cacheWrite: 0 };

describe('operations metrics', () => {
  it('counts turns, tokens, cost, deliveries, jobs and platform trouble, including events from before it loaded', async () => {
    const ops = new OpsEvents();
    let queued = 3;
    const metrics = new OpsMetrics({ running: () => 2, queued: () => queued, conversations: () => 5 });
    ops.subscribe(metrics.listener);
    const place = { platform: 'slack', conversation: 'slack:C42:person-u7', turn: 'slack:1#0' };
    ops.emit({ type: 'message.accepted', ...place, scope: 'group' });
    ops.emit({ type: 'turn.end', ...place, profile: 'default', status: 'ok', durationMs: 1500, tokens, costUsd: 0.02 });
    await metrics.load();
    ops.emit({ type: 'turn.end', ...place, profile: 'default', status: 'timeout', durationMs: 600_000, tokens, costUsd: 0.5 });
    ops.emit({ type: 'model.usage', ...place, profile: 'default', provider: 'anthropic', model: 'claude-x', tokens, costUsd: 0.02, kind: 'turn' });
    ops.emit({ type: 'model.usage', ...place, profile: 'default', provider: 'anthropic', model: 'claude-x', tokens, costUsd: 0.01, kind: 'review' });
    ops.emit({ type: 'reply.retried', ...place, attempt: 1, error: 'ETIMEDOUT' });
    ops.emit({ type: 'reply.delivered', ...place, attempts: 2 });
    ops.emit({ type: 'reply.failed', ...place, error: 'channel_not_found' });
    ops.emit({ type: 'job.fired', platform: 'slack', job: 'j1', latenessMs: 40, status: 'ok' });
    ops.emit({ type: 'platform.rate_limited', platform: 'slack', retryAfterMs: 3000 });
    ops.emit({ type: 'platform.disconnected', platform: 'discord', reason: 'socket closed (1006)' });
    ops.emit({ type: 'platform.reconnected', platform: 'discord' });
    ops.emit({ type: 'outside.error', platform: 'discord', source: 'discord', handling: 'INTERACTION_CREATE', error: 'TypeError (at BaseInteraction.js:107)' });
    ops.emit({ type: 'outside.error', platform: 'discord', source: 'discord', handling: 'INTERACTION_CREATE', error: 'TypeError (at BaseInteraction.js:107)' });
    ops.emit({ type: 'approval.answered', ...place, tool: 'shell', summary: 'command: git push --force', approved: false, by: 'u7' });
    queued = 4;
    const { body, contentType } = await metrics.render();
    expect(contentType).toContain('text/plain');
    const expected = [
      'operator_messages_accepted_total{platform="slack"} 1',
      'operator_turns_total{platform="slack",status="ok"} 1',
      'operator_turns_total{platform="slack",status="timeout"} 1',
      'operator_turn_duration_seconds_count{platform="slack"} 2',
      'operator_turn_duration_seconds_bucket{le="2.5",platform="slack"} 1',
      'operator_model_tokens_total{provider="anthropic",model="claude-x",type="input",source="turn"} 1000',
      'operator_model_tokens_total{provider="anthropic",model="claude-x",type="cache_read",source="review"} 300',
      'operator_model_cost_usd_total{provider="anthropic",model="claude-x",source="review"} 0.01',
      'operator_deliveries_total{platform="slack"} 1',
      'operator_delivery_retries_total{platform="slack"} 1',
      'operator_deliveries_failed_total{platform="slack"} 1',
      'operator_scheduler_lateness_seconds_count 1',
      'operator_scheduler_lateness_seconds_bucket{le="0.05"} 1',
      'operator_jobs_total{status="ok"} 1',
      'operator_platform_rate_limited_total{platform="slack"} 1',
      'operator_platform_disconnects_total{platform="discord"} 1',
      'operator_platform_reconnects_total{platform="discord"} 1',
      'operator_approvals_total{answer="denied"} 1',
      'operator_outside_errors_total{source="discord",event="INTERACTION_CREATE"} 2',
      'operator_turns_running 2',
      'operator_queue_depth 4',
      'operator_conversations_live 5',
    ];
    for (const line of expected) expect(body.split('\n')).toContain(line);
    // Nothing that names a conversation, a person or a turn.
    expect(body).not.toContain('C42');
    expect(body).not.toContain('u7');
    expect(body).not.toContain('git push');
  });

  it("counts the spending gate's refusals and spend by kind of cap, never by conversation or person", async () => {
    const ops = new OpsEvents();
    const metrics = new OpsMetrics({ running: () => 0, queued: () => 0, conversations: () => 0 });
    ops.subscribe(metrics.listener);
    const book = new SpendBook({ store: createStore({ driver: 'memory' }), log: () => {} });
    // A group of a person who is not an admin: the call counts for its conversation, its person and the gateway.
    const gate = budgetGate(book, () => budgetsSchema.parse({ person: { day: 0.6 } }), { report: (report) => ops.emit(spendEvent(report)) });
    const turn = { sessionKey: 'telegram:group:-100777', platform: 'telegram', senderId: '4242', admin: false, scheduled: false };
    const request = { model: 'claude-sonnet-4-6', systemPrompt: 'x', messages: [], maxTokens: 1_000 };
    // $0.30 + $0.015 = $0.315 at claude-sonnet-4-6's prices; the next call's worst case no longer fits the person's $0.60.
    const ticket = await gate.reserve(request, turn);
    ticket.settle({ input: 100_000, output: 1_000, cacheRead: 0, cacheWrite: 0 });
    for (let call = 0; call < 2; call++) await expect(gate.reserve({ ...request, maxTokens: 20_000 }, turn)).rejects.toThrow(/this person's spending cap/);
    // A scope that is not a kind of cap (a conversation's key) is counted as "other", never as a label of its own.
    ops.emit({ type: 'budget.refused', scope: 'conversation telegram:group:-100777', period: 'day', capUsd: 5 });
    const { body } = await metrics.render();
    const lines = body.split('\n');
    expect(lines).toContain('operator_budget_refusals_total{scope="person"} 2');
    expect(lines).toContain('operator_budget_refusals_total{scope="other"} 1');
    for (const scope of ['gateway', 'conversation', 'person']) expect(lines).toContain(`operator_spend_usd_total{scope="${scope}"} 0.315`);
    expect(body).not.toContain('-100777');
    expect(body).not.toContain('4242');
  });

  it('loads prom-client on first use: not for 999 waiting events, by itself at the thousandth, counting every one', async () => {
    const ops = new OpsEvents();
    const metrics = new OpsMetrics({ running: () => 0, queued: () => 0, conversations: () => 0 });
    ops.subscribe(metrics.listener);
    const accepted = () => ops.emit({ type: 'message.accepted', platform: 'telegram', conversation: 'telegram:1', turn: 'telegram:1#0', scope: 'dm' });
    for (let i = 0; i < 999; i++) accepted();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(metrics.loaded).toBe(false);
    accepted();
    await expect.poll(() => metrics.loaded).toBe(true);
    accepted();
    const { body } = await metrics.render();
    expect(body.split('\n')).toContain('operator_messages_accepted_total{platform="telegram"} 1001');
  });

  it('serves /metrics only to a bearer of an accepted token', async () => {
    const metrics = new OpsMetrics({ running: () => 0, queued: () => 0, conversations: () => 0 });
    const route = createMetricsRoute({ metrics, tokens: () => ['the-admin-token', undefined, ''] });
    // Each from a client of its own: wrong tokens count per client (see the bearer gate's tests).
    let client = 0;
    const get = (authorization?: string) => route.handler(new Request('http://localhost/metrics', { headers: authorization ? { authorization } : {} }), { clientAddress: `192.0.2.${++client}`, https: false });
    for (const refused of [undefined, 'Bearer ', 'Bearer wrong', 'the-admin-token', 'Basic the-admin-token', 'Bearer the-admin-token extra']) {
      const response = await get(refused);
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toContain('Bearer');
      expect(await response.text()).not.toContain('operator_');
    }
    const ok = await get('Bearer the-admin-token');
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('operator_turns_running 0');
    // No token configured at all: nobody gets in (an empty one is not a password).
    const closed = createMetricsRoute({ metrics, tokens: () => [''] });
    expect((await closed.handler(new Request('http://localhost/metrics', { headers: { authorization: 'Bearer ' } }))).status).toBe(401);
  });
});
