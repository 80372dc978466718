/**
 * Every bearer check counts wrong tokens like a login: `/metrics` and `/control/schedule` refuse a
 * client after 5 wrong tokens in 15 minutes (429, `Retry-After`), without comparing its next ones,
 * the right one included; another client is not held back; the client is logged once, by its
 * address, never a token. A right control token forgets the client's wrong ones; a right metrics
 * token does not (it must not buy guesses at the admin token, which opens `/metrics` too).
 */
import { describe, expect, it } from 'vitest';
import type { RouteConnection } from '../../src/channels/types.ts';
import { createControlRoutes, scheduleControlPath } from '../../src/gateway/control/control-route.ts';
import { LoginRateLimiter } from '../../src/gateway/http/login-rate-limiter.ts';
import { createMetricsRoute } from '../../src/gateway/ops/metrics-route.ts';
import { OpsMetrics } from '../../src/gateway/ops/ops-metrics.ts';
import type { ScheduleControl } from '../../src/gateway/schedule-control.ts';

const adminToken = 'the-admin-token-0123456789abcdef';
const metricsToken = 'the-metrics-token-0123456789abc';
const controlToken = 'the-control-token-0123456789abc';
const attacker: RouteConnection = { clientAddress: '203.0.113.7', https: false };
const neighbour: RouteConnection = { clientAddress: '198.51.100.4', https: false };

function metricsRoute(log: string[]) {
  const metrics = new OpsMetrics({ running: () => 0, queued: () => 0, conversations: () => 0 });
  const route = createMetricsRoute({ metrics, tokens: () => [metricsToken, adminToken], log: (line) => log.push(line) });
  return (token: string | undefined, connection = attacker) =>
    route.handler(new Request('http://localhost/metrics', { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } }), connection);
}

/** No request of these tests reaches the spending: each is refused before (its token, or its body `{}`). */
function noBudget(): never {
  throw new Error('no request in this test gets this far');
}

function controlRoute(log: string[]) {
  const control = { list: () => [] } as unknown as ScheduleControl;
  const route = createControlRoutes({ token: controlToken, ready: () => true, control: () => control, budget: noBudget, log: (line) => log.push(line) }).find((candidate) => candidate.path === scheduleControlPath)!;
  return (token: string, connection = attacker) =>
    route.handler(new Request('http://localhost/control/schedule', { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' }), connection);
}

describe('the bearer checks of /metrics and /control', () => {
  it('/metrics: refuses a client after 5 wrong tokens, the right one included, and logs it once by its address', async () => {
    const log: string[] = [];
    const get = metricsRoute(log);
    const statuses = [];
    for (const guess of ['guess-1', undefined, 'guess-3', 'guess-4']) statuses.push((await get(guess)).status);
    expect(statuses).toEqual([401, 401, 401, 401]);
    const fifth = await get('guess-5');
    expect(fifth.status).toBe(429);
    expect(Number(fifth.headers.get('retry-after'))).toBeGreaterThan(14 * 60);
    expect(await fifth.json()).toMatchObject({ error: expect.stringContaining('too many wrong tokens') });
    // At the limit, the right token is not even compared.
    const right = await get(metricsToken);
    expect(right.status).toBe(429);
    expect(await right.text()).not.toContain('operator_');
    // Another client is not held back.
    expect((await get(metricsToken, neighbour)).status).toBe(200);
    expect(log).toEqual(['metrics: too many wrong tokens from 203.0.113.7; its requests are refused for 15 min']);
    for (const secret of [metricsToken, adminToken, 'guess-5']) expect(log.join('\n')).not.toContain(secret);
  });

  it('/metrics: a right metrics token does not forget the wrong ones (no guesses at the admin token bought with it)', async () => {
    const get = metricsRoute([]);
    for (let round = 0; round < 4; round++) {
      expect((await get(`admin-guess-${round}`)).status).toBe(401);
      expect((await get(metricsToken)).status).toBe(200);
    }
    expect((await get('admin-guess-4')).status).toBe(429);
    expect((await get(adminToken)).status).toBe(429);
  });

  it('/control/schedule: refuses a client after 5 wrong tokens, before reading its body; a right token forgets them', async () => {
    const log: string[] = [];
    const post = controlRoute(log);
    for (let guess = 0; guess < 4; guess++) expect((await post(`control-guess-${guess}`)).status).toBe(401);
    // The owner's `operator schedule` gets in, and the count starts again.
    expect((await post(controlToken)).status).not.toBe(401);
    for (let guess = 0; guess < 4; guess++) expect((await post(`control-guess-${guess}`)).status).toBe(401);
    const limited = await post('control-guess-5');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).not.toBeNull();
    expect((await post(controlToken)).status).toBe(429);
    expect((await post(controlToken, neighbour)).status).not.toBe(429);
    expect(log).toEqual(['control: too many wrong tokens from 203.0.113.7; its requests are refused for 15 min']);
    expect(log.join('\n')).not.toContain(controlToken);
  });

  it('/control/schedule: refuses to be made with a control token shorter than 16 characters', () => {
    const control = { list: () => [] } as unknown as ScheduleControl;
    expect(() => createControlRoutes({ token: 'short-token', ready: () => true, control: () => control, budget: noBudget, log: () => undefined })).toThrow(/the control token is not valid \(expected at least 16 characters\)/);
  });
});

describe('LoginRateLimiter with forgetOnSuccess off', () => {
  it('keeps counting wrong attempts across right ones until the window ends', () => {
    let now = 0;
    const limiter = new LoginRateLimiter({ maxFailures: 2, windowMs: 1000, forgetOnSuccess: false, now: () => now });
    expect(limiter.attempt('a', false)).toEqual({ outcome: 'wrong' });
    expect(limiter.attempt('a', true)).toEqual({ outcome: 'ok' });
    expect(limiter.attempt('a', false)).toMatchObject({ outcome: 'refused', reachedNow: true });
    now = 1000;
    expect(limiter.attempt('a', true)).toEqual({ outcome: 'ok' });
  });
});
