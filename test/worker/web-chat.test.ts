/**
 * The web chat on Workers, inside workerd: off without its token; the Node gateway's login in
 * front of the page and the API, its failed attempts counted by the access object; each
 * browser's requests answered by the Durable Object of its own conversation (`web:<clientId>`),
 * its answer streamed to its own event stream.
 */
import { abortAllDurableObjects, env, runInDurableObject, SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { LoginFailures } from '../../src/gateway/http/login-rate-limiter.ts';
import { accessObject, loginFailuresPrefix } from '../../src/worker/access-object.ts';
import worker from '../../src/worker/index.ts';
import type { WorkerEnv } from '../../src/worker/worker-env.ts';
import { callFake } from './support/fakes.ts';

const workerEnv = env as WorkerEnv;
/** https: the session cookie is `Secure` there, as a browser of a deployed Worker sees it. */
const origin = 'https://example.com';
const token = workerEnv.OPERATOR_WEB_TOKEN!;

/** A client id as the page makes one (24 letters and digits), new for each call. */
function newClientId(): string {
  return `c${crypto.randomUUID().replaceAll('-', '').slice(0, 23)}`;
}

function logIn(body: string, type = 'application/json', headers: Record<string, string> = {}): Promise<Response> {
  return SELF.fetch(`${origin}/web/login`, { method: 'POST', headers: { 'content-type': type, ...headers }, body, redirect: 'manual' });
}

/** Logs in with the right token; the `Cookie` header value that carries the session. */
async function session(): Promise<string> {
  const response = await logIn(JSON.stringify({ token }));
  expect(response.status).toBe(200);
  const cookie = response.headers.get('set-cookie') ?? '';
  expect(cookie).toMatch(/^operator_session_443=v1\./);
  return cookie.split(';')[0]!;
}

/** A client address of its own for each call (the edge's `CF-Connecting-IP`), so no test sees another's failures. */
function newClientAddress(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(2));
  return `2001:db8:${bytes[0]!.toString(16)}:${bytes[1]!.toString(16)}::1`;
}

/** A login attempt from `address`, through the Worker as exported, with `environment`'s bindings. */
function attempt(address: string, given: string, environment: WorkerEnv = workerEnv): Promise<Response> {
  return Promise.resolve(worker.request(`${origin}/web/login`, { method: 'POST', headers: { 'content-type': 'application/json', 'cf-connecting-ip': address }, body: JSON.stringify({ token: given }) }, environment));
}

/** The failed logins the access object keeps for the IPv6 client `address` (its /64). */
function keptFailures(address: string): Promise<LoginFailures | undefined> {
  const key = `${address.split(':').slice(0, 4).join(':')}::/64`;
  return runInDurableObject(accessObject(workerEnv), (_object, state) => state.storage.kv.get<LoginFailures>(loginFailuresPrefix + key));
}

function get(path: string, cookie?: string): Promise<Response> {
  return SELF.fetch(`${origin}${path}`, { headers: cookie === undefined ? {} : { cookie } });
}

function post(path: string, body: unknown, cookie?: string): Promise<Response> {
  return SELF.fetch(`${origin}${path}`, {
    method: 'POST',
    // The page's own origin, as a browser sends it with a fetch from the page.
    headers: { 'content-type': 'application/json', origin, ...(cookie === undefined ? {} : { cookie }) },
    body: JSON.stringify(body),
  });
}

/** One SSE event as the page reads it. */
interface StreamEvent {
  event: string;
  data: { text?: string; [key: string]: unknown };
}

/** A browser's open event stream, read chunk by chunk. */
class EventStream {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #pending: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;
  text = '';

  constructor(response: Response) {
    this.#reader = response.body!.getReader();
  }

  /** The events read so far (comments and the `retry:` line left out). */
  get events(): StreamEvent[] {
    return this.text
      .split('\n\n')
      .map((block) => ({ event: /^event: (.*)$/m.exec(block)?.[1], data: /^data: (.*)$/m.exec(block)?.[1] }))
      .filter((block): block is { event: string; data: string } => block.event !== undefined && block.data !== undefined)
      .map((block) => ({ event: block.event, data: JSON.parse(block.data) as StreamEvent['data'] }));
  }

  /** Reads until `done` holds of the events, or `timeoutMs` passes; the events read. */
  async until(done: (events: StreamEvent[]) => boolean, timeoutMs = 15_000): Promise<StreamEvent[]> {
    const deadline = Date.now() + timeoutMs;
    while (!done(this.events)) {
      const left = deadline - Date.now();
      if (left <= 0) break;
      // A read that outlasts the wait is kept for the next call: no chunk is lost.
      this.#pending ??= this.#reader.read();
      const result = await Promise.race([this.#pending, new Promise<'waited'>((resolve) => setTimeout(() => resolve('waited'), left))]);
      if (result === 'waited') break;
      this.#pending = undefined;
      if (result.done) break;
      this.text += this.#decoder.decode(result.value, { stream: true });
    }
    return this.events;
  }

  async close(): Promise<void> {
    await this.#reader.cancel().catch(() => undefined);
  }
}

async function openEvents(clientId: string, cookie: string): Promise<EventStream> {
  const response = await get(`/web/events?clientId=${clientId}`, cookie);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const stream = new EventStream(response);
  await stream.until((events) => events.some((event) => event.event === 'ready'));
  return stream;
}

const saying = (text: string) => (events: StreamEvent[]) => events.some((event) => event.event === 'message' && event.data.text === text);

describe('the web chat on Workers, without OPERATOR_WEB_TOKEN', () => {
  const without: WorkerEnv = { ...workerEnv, OPERATOR_WEB_TOKEN: undefined };

  it('is off: the page says how to turn it on, and the API answers 404', async () => {
    const page = await worker.request(`${origin}/`, {}, without);
    expect(page.status).toBe(404);
    const html = await page.text();
    expect(html).toContain('The web chat is off');
    expect(html).toContain('wrangler secret put OPERATOR_WEB_TOKEN');
    const api = await worker.request(`${origin}/web/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ clientId: newClientId(), id: 'm1', text: 'hi' }) }, without);
    expect(api.status).toBe(404);
    expect(((await api.json()) as { error: string }).error).toContain('the web chat is off');
    // The login is off with it: no token to log in with.
    expect((await worker.request(`${origin}/web/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"token":"x"}' }, without)).status).toBe(404);
  });

  it('is off with a token too short to stand, saying why and never the value', async () => {
    const page = await worker.request(`${origin}/`, {}, { ...workerEnv, OPERATOR_WEB_TOKEN: 'tiny-secret' });
    expect(page.status).toBe(404);
    const html = await page.text();
    expect(html).toContain('at least 16 characters');
    expect(html).not.toContain('tiny-secret');
  });

  it('leaves the other routes alone', async () => {
    expect((await worker.request(`${origin}/healthz`, {}, without)).status).toBe(200);
  });
});

describe('the web chat login on Workers', () => {
  it('without a session: the login page at /, 401 from the API', async () => {
    const page = await get('/');
    expect(page.status).toBe(401);
    expect(await page.text()).toContain('Log in to the web chat');
    const clientId = newClientId();
    const message = await post('/web/messages', { clientId, id: 'm1', text: 'hello?' });
    expect(message.status).toBe(401);
    expect(await message.json()).toEqual({ error: expect.stringContaining('log in first') });
    expect((await get(`/web/events?clientId=${clientId}`)).status).toBe(401);
    expect((await get(`/web/history?clientId=${clientId}`)).status).toBe(401);
    // A forged cookie is no session.
    expect((await get('/', 'operator_session_443=v1.zzzzzz.AAAA.BBBB')).status).toBe(401);
  });

  it('refuses a wrong token, and a login posted from another site', async () => {
    const wrong = await logIn(JSON.stringify({ token: 'not-the-token-at-all' }));
    expect(wrong.status).toBe(401);
    expect(await wrong.json()).toEqual({ error: 'wrong token' });
    expect(wrong.headers.get('set-cookie')).toBeNull();
    const form = await logIn('token=not-the-token-at-all', 'application/x-www-form-urlencoded');
    expect(form.status).toBe(401);
    expect(await form.text()).toContain('That token is not right.');
    const crossSite = await logIn(JSON.stringify({ token }), 'application/json', { origin: 'https://evil.example' });
    expect(crossSite.status).toBe(403);
    expect(crossSite.headers.get('set-cookie')).toBeNull();
  });

  it('gives the right token a session cookie (HttpOnly, Secure, SameSite=Strict), and the form a redirect to the chat', async () => {
    const response = await logIn(JSON.stringify({ token }));
    expect(response.status).toBe(200);
    const cookie = response.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/Secure/);
    expect(cookie).toMatch(/SameSite=Strict/);
    const form = await logIn(`token=${encodeURIComponent(token)}`, 'application/x-www-form-urlencoded');
    expect(form.status).toBe(303);
    expect(form.headers.get('location')).toBe('/');
  });

  it('serves the chat page with a session, and logs out', async () => {
    const cookie = await session();
    const page = await get('/', cookie);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('id="composer"');
    expect(html).toContain('id="logout"');
    expect(page.headers.get('content-security-policy')).toContain("connect-src 'self'");
    const loginAgain = await SELF.fetch(`${origin}/web/login`, { headers: { cookie }, redirect: 'manual' });
    expect(loginAgain.status).toBe(303);
    expect(loginAgain.headers.get('location')).toBe('/');
    const out = await post('/web/logout', {}, cookie);
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/^operator_session_443=;/);
  });
});

describe('the web chat login’s attempt limit on Workers, kept by the access object', () => {
  it('refuses a client after five wrong tokens, the right one too, with Retry-After; another client is not refused', async () => {
    const guesser = newClientAddress();
    const statuses: number[] = [];
    for (let guess = 0; guess < 5; guess++) statuses.push((await attempt(guesser, `wrong-guess-${guess}-0123456789`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 429]);
    const refused = await attempt(guesser, token);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(14 * 60);
    expect(refused.headers.get('set-cookie')).toBeNull();
    // The same through SELF, as a browser's request reaches the deployed Worker.
    const throughSelf = await logIn(JSON.stringify({ token }), 'application/json', { 'cf-connecting-ip': guesser });
    expect(throughSelf.status).toBe(429);
    expect((await attempt(newClientAddress(), token)).status).toBe(200);
  });

  it('keeps the count in the access object’s storage: a new door, or the object woken again, still refuses', async () => {
    const guesser = newClientAddress();
    for (let guess = 0; guess < 5; guess++) await attempt(guesser, `wrong-guess-${guess}-0123456789`);
    expect(await keptFailures(guesser)).toEqual({ count: 5, since: expect.any(Number) });
    // Another token makes the gate build a new door (as a new isolate would); back to this one, another new door.
    expect((await worker.request(`${origin}/`, {}, { ...workerEnv, OPERATOR_WEB_TOKEN: `${token}-other` })).status).toBe(401);
    expect((await attempt(guesser, token)).status).toBe(429);
    // Every object forgets its memory (an eviction); the count is read back from storage.
    await abortAllDurableObjects();
    expect((await attempt(guesser, token)).status).toBe(429);
    expect(await keptFailures(guesser)).toEqual({ count: 5, since: expect.any(Number) });
  });

  it('forgets a client’s failures when it logs in', async () => {
    const client = newClientAddress();
    for (let guess = 0; guess < 3; guess++) expect((await attempt(client, `wrong-guess-${guess}-0123456789`)).status).toBe(401);
    expect((await keptFailures(client))?.count).toBe(3);
    expect((await attempt(client, token)).status).toBe(200);
    expect(await keptFailures(client)).toBeUndefined();
    // Four more wrong ones: not refused, the count started again.
    for (let guess = 0; guess < 4; guess++) expect((await attempt(client, `wrong-guess-${guess}-0123456789`)).status).toBe(401);
  });

  it('refuses the attempt, the right token too, when the access object cannot be reached (fail closed)', async () => {
    const unreachable = {
      idFromName: () => {
        throw new Error('the access object is out of reach');
      },
    } as unknown as WorkerEnv['ACCESS'];
    const response = await attempt(newClientAddress(), token, { ...workerEnv, ACCESS: unreachable });
    expect(response.status).toBe(503);
    expect(response.headers.get('set-cookie')).toBeNull();
    expect(await response.json()).toEqual({ error: expect.stringContaining('cannot count failed attempts') });
  });
});

describe('a browser talking with the bot on Workers', () => {
  it('gets its own conversation: the answer on its event stream, then its history', async () => {
    await callFake('model', 'reset');
    const cookie = await session();
    const ada = newClientId();
    const other = newClientId();
    const adaEvents = await openEvents(ada, cookie);
    const otherEvents = await openEvents(other, cookie);
    try {
      // Only holders of the login token get here: on Workers they talk without pairing.
      await callFake('model', 'enqueue', { text: 'Hello from the Worker web chat' });
      const sent = await post('/web/messages', { clientId: ada, id: 'm2', text: 'may I talk now?' }, cookie);
      expect(sent.status).toBe(202);
      expect(await sent.json()).toEqual({ accepted: true, id: 'm2' });
      expect(saying('Hello from the Worker web chat')(await adaEvents.until(saying('Hello from the Worker web chat')))).toBe(true);

      const history = await get(`/web/history?clientId=${ada}`, cookie);
      expect(history.status).toBe(200);
      const { messages } = (await history.json()) as { messages: { role: string; text: string }[] };
      expect(messages.map(({ role, text }) => ({ role, text }))).toEqual([
        { role: 'user', text: 'may I talk now?' },
        { role: 'assistant', text: 'Hello from the Worker web chat' },
      ]);

      // Another browser saw none of it, and has no history.
      const otherSaw = await otherEvents.until(() => false, 300);
      expect(otherSaw.map((event) => event.event)).toEqual(['ready']);
      const otherHistory = await get(`/web/history?clientId=${other}`, cookie);
      expect(await otherHistory.json()).toEqual({ messages: [] });
    } finally {
      await adaEvents.close();
      await otherEvents.close();
    }
  });

  it('answers a missing or malformed client id with 400, in the web chat’s error shape', async () => {
    const cookie = await session();
    const badQuery = await get('/web/events?clientId=short', cookie);
    expect(badQuery.status).toBe(400);
    expect(await badQuery.json()).toEqual({ error: 'clientId must be 16 to 64 letters, digits, "-" or "_"' });
    expect(await (await get('/web/history', cookie)).json()).toEqual({ error: 'clientId is required (query parameter)' });
    const badBody = await post('/web/messages', { clientId: '../../other', id: 'm1', text: 'hi' }, cookie);
    expect(badBody.status).toBe(400);
    expect(await badBody.json()).toEqual({ error: 'clientId must be 16 to 64 letters, digits, "-" or "_"' });
    const noId = await post('/web/stop', { id: 's1' }, cookie);
    expect(noId.status).toBe(400);
    expect(await noId.json()).toEqual({ error: 'clientId is required' });
    const notJson = await SELF.fetch(`${origin}/web/messages`, { method: 'POST', headers: { 'content-type': 'text/plain', cookie }, body: 'hi' });
    expect(notJson.status).toBe(415);
  });

  it('refuses a message posted to the API from another site, even with the session', async () => {
    const cookie = await session();
    const response = await SELF.fetch(`${origin}/web/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://evil.example', cookie },
      body: JSON.stringify({ clientId: newClientId(), id: 'm1', text: 'spend the budget' }),
    });
    expect(response.status).toBe(403);
  });
});
