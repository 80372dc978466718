/**
 * The control routes, called directly and through the gateway's hono app: the schedule route
 * (`POST /control/schedule`) over a real scheduler and real known conversations, the budget route
 * (`POST /control/budget`) over the gateway's real spending on a memory store. The bearer token is
 * required (wrong ones counted once for both routes), a gateway that is not ready answers 503,
 * bodies that are not a request answer 400 and no answer repeats the token. Also the control file (`gateway.json`): written, read, removed and
 * recognised as stale by its pid.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { statSync } from 'node:fs';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { ChannelRoute } from '../../src/channels/types.ts';
import { ConfigurationError } from '../../src/core/errors.ts';
import { controlFilePath, isProcessRunning, newControlToken, readControlFile, removeControlFile, writeControlFile, type ControlFile } from '../../src/gateway/control/control-file.ts';
import { budgetControlPath, createControlRoutes, scheduleControlPath } from '../../src/gateway/control/control-route.ts';
import { gatewaySpendGate, type GatewaySpending } from '../../src/gateway/budget/gateway-spending.ts';
import { budgetsSchema } from '../../src/gateway/config/budget-schema.ts';
import { LoginRateLimiter } from '../../src/gateway/http/login-rate-limiter.ts';
import { KnownConversations } from '../../src/gateway/known-conversations.ts';
import { findTarget, type ScheduleControl } from '../../src/gateway/schedule-control.ts';
import { Scheduler } from '../../src/gateway/scheduler/index.ts';
import { createGatewayApp } from '../../src/gateway/server.ts';
import { createStore } from '../../src/store/index.ts';
import { makeTempDir } from '../helpers/temp-dir.ts';

/** 2026-11-24T12:00:00Z. */
const start = Date.parse('2026-11-24T12:00:00Z');
const token = 'Zm9vYmFyLXNlY3JldC10b2tlbi0xMjM0NTY3ODkwYWJjZGVm';

let ready: boolean;
let control: ScheduleControl;
let route: ChannelRoute;
let budgetRoute: ChannelRoute;
let spending: GatewaySpending;
let resumed: number;
let logged: string[];

beforeEach(async () => {
  ready = true;
  const store = createStore({ driver: 'memory' });
  const scheduler = new Scheduler({
    store,
    settings: { timezone: 'UTC' },
    now: () => start,
    run: () => Promise.reject(new Error('these tests never run a job')),
    notify: async () => {},
  });
  await scheduler.load();
  const known = new KnownConversations(store);
  await known.remember('telegram:group:-100123', { platform: 'telegram', conversationId: '-100123' }, 'group');
  control = {
    scheduler,
    findTarget: (address) => findTarget(known, address),
    profileFor: async () => 'default',
    assertProfile: (name) => {
      if (name !== 'default') throw new ConfigurationError(`profile "${name}" does not exist`);
    },
    now: () => start,
  };
  logged = [];
  spending = gatewaySpendGate({ store, budgets: () => budgetsSchema.parse({ gateway: { day: 50 } }), log: (line) => logged.push(line) });
  resumed = 0;
  spending.onResume(() => resumed++);
  const routes = createControlRoutes({ token, ready: () => ready, control: () => control, budget: () => ({ spending, profiles: [] }), log: (line) => logged.push(line) });
  route = routes.find((candidate) => candidate.path === scheduleControlPath)!;
  budgetRoute = routes.find((candidate) => candidate.path === budgetControlPath)!;
});

/** A request to the route; `authorization` null sends none. */
function request(body: string, authorization: string | null = `Bearer ${token}`): Request {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (authorization !== null) headers.authorization = authorization;
  return new Request(`http://127.0.0.1${scheduleControlPath}`, { method: 'POST', headers, body });
}

async function send(body: unknown, authorization?: string): Promise<{ status: number; text: string; json: Record<string, unknown> }> {
  const response = await route.handler(request(typeof body === 'string' ? body : JSON.stringify(body), authorization));
  const text = await response.text();
  return { status: response.status, text, json: JSON.parse(text) as Record<string, unknown> };
}

describe('createControlRoutes', () => {
  it('is a POST route at /control/schedule', () => {
    expect(route).toMatchObject({ method: 'POST', path: '/control/schedule' });
  });

  it('refuses a request without an Authorization header with 401', async () => {
    const response = await route.handler(request(JSON.stringify({ action: 'list' }), null));
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: 'unauthorized' });
  });

  it.each([
    ['a wrong token of the same length', `Bearer ${token.slice(0, -1)}X`],
    ['a shorter token', 'Bearer abc'],
    ['a longer token', `Bearer ${token}${token}`],
    ['the token without "Bearer"', token],
    ['the token as Basic credentials', `Basic ${token}`],
    ['an empty bearer', 'Bearer '],
  ])('refuses %s with 401', async (_case, authorization) => {
    const reply = await send({ action: 'list' }, authorization);
    expect(reply.status).toBe(401);
    expect(reply.json).toEqual({ error: 'unauthorized' });
  });

  it('answers the request of the right token with 200 and the reply', async () => {
    const reply = await send({ action: 'list' });
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({ ok: true, text: 'No scheduled jobs.', jobs: [] });
  });

  it('takes the scheme in any case', async () => {
    expect((await send({ action: 'list' }, `bearer ${token}`)).status).toBe(200);
  });

  it('adds a job and lists it, answering with the jobs as JSON', async () => {
    const added = await send({ action: 'add', to: 'telegram:-100123', prompt: 'remind me', in: '20m' });
    expect(added.status).toBe(200);
    expect(added.json.ok).toBe(true);
    expect(added.json.text).toContain('in telegram:-100123 with profile default: next run in 20 minutes');
    const [job] = added.json.jobs as { id: string; creator: { id: string } }[];
    expect(job!.creator.id).toBe('cli');

    const listed = await send({ action: 'list' });
    expect((listed.json.jobs as { id: string }[]).map((entry) => entry.id)).toEqual([job!.id]);
    expect(listed.json.text).toContain(job!.id);
  });

  it('answers a refused request with 200 and ok false', async () => {
    const reply = await send({ action: 'rm', id: 'nosuchjob' });
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({ ok: false, text: expect.stringContaining('no scheduled job has the id "nosuchjob"'), jobs: [] });
  });

  it('answers 503 while the gateway is not ready', async () => {
    ready = false;
    const reply = await send({ action: 'list' });
    expect(reply.status).toBe(503);
    expect(reply.json.error).toMatch(/starting or stopping/);
  });

  it('refuses a wrong token with 401 even while the gateway is not ready', async () => {
    ready = false;
    expect((await send({ action: 'list' }, 'Bearer wrong')).status).toBe(401);
  });

  it('refuses a body that is not JSON with 400', async () => {
    const reply = await send('action=list');
    expect(reply.status).toBe(400);
    expect(reply.json).toEqual({ error: 'the body must be JSON' });
  });

  it.each([
    ['an unknown action', { action: 'explode' }],
    ['an extra field', { action: 'list', secret: token }],
    ['rm without an id', { action: 'rm' }],
    ['add without a prompt', { action: 'add', to: 'telegram:-100123', in: '20m' }],
    ['a repeat that is not a number', { action: 'add', to: 'telegram:-100123', prompt: 'p', every: '1h', repeat: '3' }],
    ['an array', [{ action: 'list' }]],
    ['null', null],
  ])('refuses %s with 400 and "invalid request"', async (_case, body) => {
    const reply = await send(body);
    expect(reply.status).toBe(400);
    expect(reply.json.error).toMatch(/^invalid request: /);
  });

  it('names the field that is wrong', async () => {
    expect((await send({ action: 'rm' })).json.error).toContain('id');
    expect((await send({ action: 'list', extra: 1 })).json.error).toContain('extra');
  });

  it('never repeats the token in a refusal', async () => {
    const refusals = [
      await send({ action: 'list' }, `Bearer ${token}x`),
      await send({ action: 'list' }, token),
      await send(`{"token": "${token}"`),
      await send({ action: 'list', secret: token }),
      await send({ action: 'rm', id: 5, token }),
      await send({ action: token }),
    ];
    for (const refusal of refusals) {
      expect([400, 401]).toContain(refusal.status);
      expect(refusal.text).not.toContain(token);
    }
  });
});

describe('the budget control route (POST /control/budget)', () => {
  async function sendBudget(body: unknown, authorization: string | null = `Bearer ${token}`, connection = { clientAddress: '127.0.0.1', https: false }) {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (authorization !== null) headers.authorization = authorization;
    const response = await budgetRoute.handler(new Request(`http://127.0.0.1${budgetControlPath}`, { method: 'POST', headers, body: typeof body === 'string' ? body : JSON.stringify(body) }), connection);
    const text = await response.text();
    return { status: response.status, text, json: JSON.parse(text) as Record<string, unknown> };
  }

  it('pauses and resumes the spending it was given, telling its listeners (the waiting messages) on resume', async () => {
    const paused = await sendBudget({ action: 'pause' });
    expect(paused.status).toBe(200);
    expect(paused.json).toMatchObject({ ok: true, text: expect.stringMatching(/^Paused all model calls: running turns stop at their next call/), overview: { paused: true } });
    expect(spending.paused).toBe(true);
    expect((await sendBudget({ action: 'pause' })).json.text).toBe('Model calls were paused already.');
    const going = await sendBudget({ action: 'resume' });
    expect(going.json).toMatchObject({ ok: true, text: 'Model calls go on; the messages that waited are answered now.', overview: { paused: false } });
    expect(spending.paused).toBe(false);
    expect(resumed).toBe(1);
    expect((await sendBudget({ action: 'resume' })).json.text).toBe('Model calls are not paused: nothing to resume.');
    expect(resumed).toBe(1);
  });

  it('answers status with the caps in force and what the gateway spent', async () => {
    const status = await sendBudget({ action: 'status' });
    expect(status.status).toBe(200);
    expect(status.json.text).toMatch(/^Model calls go on\.\nThe gateway spent \$0\.00 today \(\d{4}-\d\d-\d\d\) and \$0\.00 this month/);
    expect(status.json.text).toContain('- the gateway: $50.00 a day');
    expect(status.json.overview).toMatchObject({ paused: false, spent: { day: 0, month: 0 }, caps: expect.arrayContaining([{ applies: 'the gateway', period: 'day', usd: 50, default: false }]) });
  });

  it('refuses a stranger (no token, a wrong one) with 401, without changing anything', async () => {
    expect((await sendBudget({ action: 'pause' }, null)).status).toBe(401);
    const wrong = await sendBudget({ action: 'pause' }, `Bearer ${token.slice(0, -1)}X`, { clientAddress: '203.0.113.9', https: false });
    expect(wrong.status).toBe(401);
    expect(wrong.json).toEqual({ error: 'unauthorized' });
    expect(spending.paused).toBe(false);
  });

  it.each([
    ['a body that is not JSON', 'pause', 'the body must be JSON'],
    ['an unknown action', { action: 'stop' }, /^invalid request: action: /],
    ['an extra field', { action: 'pause', token }, /^invalid request: body: .*token/],
    ['no action', {}, /^invalid request: action: /],
  ])('refuses %s with 400 and a message, never repeating the token', async (_case, body, error) => {
    const reply = await sendBudget(body);
    expect(reply.status).toBe(400);
    expect(reply.json.error).toMatch(error);
    expect(reply.text).not.toContain(token);
    expect(spending.paused).toBe(false);
  });

  it('answers 503 while the gateway is not ready', async () => {
    ready = false;
    const reply = await sendBudget({ action: 'pause' });
    expect(reply.status).toBe(503);
    expect(spending.paused).toBe(false);
  });

  it('counts wrong tokens at either control route together: one token opens both', async () => {
    const limiter = new LoginRateLimiter();
    const [schedule, budget] = createControlRoutes({ token, limiter, ready: () => true, control: () => control, budget: () => ({ spending, profiles: [] }), log: (line) => logged.push(line) });
    const guess = (at: ChannelRoute, path: string) =>
      at.handler(new Request(`http://127.0.0.1${path}`, { method: 'POST', headers: { authorization: 'Bearer wrong-guess' }, body: '{}' }), { clientAddress: '198.51.100.7', https: false });
    for (let attempt = 0; attempt < 4; attempt++) expect((await guess(schedule!, scheduleControlPath)).status).toBe(401);
    expect((await guess(budget!, budgetControlPath)).status).toBe(429);
    const right = await budget!.handler(new Request(`http://127.0.0.1${budgetControlPath}`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: JSON.stringify({ action: 'pause' }) }), { clientAddress: '198.51.100.7', https: false });
    expect(right.status).toBe(429);
    expect(spending.paused).toBe(false);
    expect(logged.join('\n')).not.toContain(token);
  });
});

describe('createControlRoutes mounted on the gateway app', () => {
  function app() {
    return createGatewayApp([], () => ({ state: 'ready', channels: [], liveSessions: 0 }), [route, budgetRoute]);
  }

  it('answers a request with the token with the reply', async () => {
    const response = await app().request(scheduleControlPath, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'add', to: 'telegram:-100123', prompt: 'remind me', every: '1h', name: 'hourly' }),
    });
    expect(response.status).toBe(200);
    const reply = (await response.json()) as { ok: boolean; text: string; jobs: { name: string }[] };
    expect(reply.ok).toBe(true);
    expect(reply.text).toContain('Scheduled job "hourly"');
    expect(reply.jobs.map((job) => job.name)).toEqual(['hourly']);
  });

  it('refuses a request without the token with 401', async () => {
    const response = await app().request(scheduleControlPath, { method: 'POST', body: JSON.stringify({ action: 'list' }) });
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ error: 'unauthorized' });
  });

  it('pauses the spending through /control/budget with the token, and refuses it without', async () => {
    const refused = await app().request(budgetControlPath, { method: 'POST', body: JSON.stringify({ action: 'pause' }) });
    expect(refused.status).toBe(401);
    expect(spending.paused).toBe(false);
    const response = await app().request(budgetControlPath, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: JSON.stringify({ action: 'pause' }) });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { overview: { paused: boolean } }).overview.paused).toBe(true);
    expect(spending.paused).toBe(true);
  });

  it('answers 404 to a GET of the control path', async () => {
    const response = await app().request(scheduleControlPath, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(404);
  });

  it('answers 500 without details when applying the request fails unexpectedly', async () => {
    control.profileFor = async () => {
      throw new Error('bindings unreadable');
    };
    const response = await app().request(scheduleControlPath, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: JSON.stringify({ action: 'add', to: 'telegram:-100123', prompt: 'remind me', in: '20m' }),
    });
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: "internal error (the gateway's log says why)" });
    expect(logged).toEqual(['operator schedule: the request failed: bindings unreadable']);
  });
});

describe('the control file', () => {
  const file: ControlFile = { pid: 4242, url: 'http://127.0.0.1:8787', token, startedAt: start };

  it('is read back as it was written', async () => {
    const home = await makeTempDir('operator-control-');
    await writeControlFile(home, file);
    expect(await readControlFile(home)).toEqual(file);
    expect(controlFilePath(home)).toBe(join(home, 'gateway.json'));
  });

  it('is readable by its owner only', async () => {
    const home = await makeTempDir('operator-control-');
    await writeControlFile(home, file);
    expect(statSync(controlFilePath(home)).mode & 0o777).toBe(0o600);
  });

  it('is written into a home folder that does not exist yet, leaving no temporary file', async () => {
    const home = join(await makeTempDir('operator-control-'), 'not', 'yet');
    await writeControlFile(home, file);
    expect(await readControlFile(home)).toEqual(file);
    expect(await readdir(home)).toEqual(['gateway.json']);
  });

  it('replaces the file of an earlier gateway', async () => {
    const home = await makeTempDir('operator-control-');
    await writeControlFile(home, file);
    const next = { ...file, pid: 4343, token: newControlToken() };
    await writeControlFile(home, next);
    expect(await readControlFile(home)).toEqual(next);
  });

  it('reads as undefined when it is missing, not JSON, or lacks a field', async () => {
    const home = await makeTempDir('operator-control-');
    expect(await readControlFile(home)).toBeUndefined();
    for (const text of ['not json at all', '{"pid": 1, "url": "http://127.0.0.1:1"', 'null', '[]', '"text"', JSON.stringify({ url: file.url, token }), JSON.stringify({ pid: 1, token }), JSON.stringify({ pid: 1, url: file.url }), JSON.stringify({ ...file, pid: '4242' })]) {
      await writeFile(controlFilePath(home), text);
      expect(await readControlFile(home), text).toBeUndefined();
    }
  });

  it('reads a missing start time as 0', async () => {
    const home = await makeTempDir('operator-control-');
    await writeFile(controlFilePath(home), JSON.stringify({ pid: 1, url: file.url, token }));
    expect(await readControlFile(home)).toEqual({ pid: 1, url: file.url, token, startedAt: 0 });
  });

  it('is removed only by the gateway whose token it holds', async () => {
    const home = await makeTempDir('operator-control-');
    await writeControlFile(home, file);
    await removeControlFile(home, 'another-token');
    expect(await readControlFile(home)).toEqual(file);
    await removeControlFile(home, token);
    expect(await readControlFile(home)).toBeUndefined();
    // Removing it again is not an error.
    await removeControlFile(home, token);
  });

  it('makes new tokens that are long, URL-safe and different each time', () => {
    const tokens = new Set(Array.from({ length: 20 }, () => newControlToken()));
    expect(tokens.size).toBe(20);
    for (const made of tokens) expect(made).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});

describe('isProcessRunning', () => {
  it('is true for this process', () => {
    expect(isProcessRunning(process.pid)).toBe(true);
  });

  it('is false for a child process that has exited', async () => {
    const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
    expect(child.pid).toBeDefined();
    expect(isProcessRunning(child.pid!)).toBe(false);
  });
});
