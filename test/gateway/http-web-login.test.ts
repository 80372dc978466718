/**
 * The web chat's login in front of the real web channel, through the gateway app: the login page,
 * 401 without a session, the cookie, logout, the rate limit, and the routes it leaves alone.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createWebChannel, type WebChannel } from '../../src/channels/web/index.ts';
import type { ChannelRoute, InboundMessage } from '../../src/channels/types.ts';
import { LoginRateLimiter, sessionCookieName, webLogin } from '../../src/gateway/http/index.ts';
import type { LoginLimiter } from '../../src/gateway/http/login-rate-limiter.ts';
import { createGatewayApp } from '../../src/gateway/server.ts';

const token = 'the-right-token-0123456789abcdef';
const port = 8787;
const cookieName = sessionCookieName(port);

let channel: WebChannel | undefined;
afterEach(async () => {
  await channel?.stop();
  channel = undefined;
});

async function gatewayApp(options: { now?: () => number; limiter?: LoginLimiter; log?: (line: string) => void } = {}) {
  const messages: InboundMessage[] = [];
  channel = createWebChannel({ login: true, log: () => undefined });
  await channel.start({ onMessage: async (message) => void messages.push(message), onAction: async () => undefined });
  const own: ChannelRoute[] = [
    { method: 'POST', path: '/webhooks/test', handler: async () => new Response('hook') },
    { method: 'POST', path: '/control/test', handler: async () => new Response('control') },
  ];
  const app = createGatewayApp([channel], () => ({ state: 'ready', channels: ['web'], liveSessions: 0 }), own, [webLogin({ token, port, ...options })]);
  return { app, messages };
}

const message = (cookie?: string) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
  body: JSON.stringify({ clientId: 'client-0123456789abcdef', id: 'm1', text: 'hello' }),
});

function login(body: string, type = 'application/x-www-form-urlencoded', headers: Record<string, string> = {}) {
  return { method: 'POST', headers: { 'content-type': type, ...headers }, body };
}

/** `name=value` of the session cookie a response set. */
function sessionOf(response: Response): string {
  const header = response.headers.get('set-cookie') ?? '';
  expect(header).toContain(`${cookieName}=`);
  return header.split(';')[0]!;
}

describe('web login', () => {
  it('without a session: GET / is the login page (no script, strict CSP), /web/* answers 401 and nothing reaches the chat', async () => {
    const { app, messages } = await gatewayApp();
    const page = await app.request('/');
    expect(page.status).toBe(401);
    const html = await page.text();
    expect(html).toContain('<form method="post" action="/web/login">');
    expect(html).toContain('name="token"');
    expect(html).not.toContain('<script');
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'.*form-action 'self'/);
    for (const [path, init] of [
      ['/web/messages', message()],
      ['/web/history?clientId=client-0123456789abcdef', {}],
      ['/web/events?clientId=client-0123456789abcdef', {}],
      ['/web/files/abc/x.txt', {}],
    ] as const) {
      const response = await app.request(path, init);
      expect(response.status, path).toBe(401);
      expect(((await response.json()) as { error: string }).error).toMatch(/log in/);
    }
    expect(messages).toEqual([]);
  });

  it('leaves /healthz, /webhooks/* and /control/* to their own authentication', async () => {
    const { app } = await gatewayApp();
    expect((await app.request('/healthz')).status).toBe(200);
    expect(await (await app.request('/webhooks/test', { method: 'POST' })).text()).toBe('hook');
    expect(await (await app.request('/control/test', { method: 'POST' })).text()).toBe('control');
  });

  it('a form login with the right token sets an HttpOnly, SameSite=Strict cookie for 30 days and goes to the chat', async () => {
    const { app, messages } = await gatewayApp();
    const response = await app.request('/web/login', login(`token=${encodeURIComponent(token)}`));
    expect(response.status).toBe(303);
    expect(response.headers.get('location')).toBe('/');
    const header = response.headers.get('set-cookie') ?? '';
    expect(header).toMatch(/HttpOnly/);
    expect(header).toMatch(/SameSite=Strict/);
    expect(header).toMatch(/Path=\//);
    expect(header).toMatch(/Max-Age=2592000/);
    expect(header).not.toMatch(/Secure/);
    expect(header).not.toContain(token);
    const cookie = sessionOf(response);
    const chat = await app.request('/', { headers: { cookie } });
    expect(chat.status).toBe(200);
    expect(await chat.text()).toContain('id="logout"');
    expect((await app.request('/web/messages', message(cookie))).status).toBe(202);
    expect(messages.map((each) => each.text)).toEqual(['hello']);
  });

  it('a JSON login works too; behind https (X-Forwarded-Proto) the cookie is Secure', async () => {
    const { app } = await gatewayApp();
    const response = await app.request('/web/login', login(JSON.stringify({ token }), 'application/json', { 'x-forwarded-proto': 'https' }));
    expect(response.status).toBe(200);
    expect(response.headers.get('set-cookie')).toMatch(/; Secure/);
    expect((await app.request('/web/messages', message(sessionOf(response)))).status).toBe(202);
    const overHttps = await app.request('https://localhost/web/login', login(JSON.stringify({ token }), 'application/json'));
    expect(overHttps.headers.get('set-cookie')).toMatch(/; Secure/);
  });

  it('refuses a wrong, empty or missing token, and a forged or expired cookie', async () => {
    let now = 1_800_000_000_000;
    const { app } = await gatewayApp({ now: () => now });
    const wrong = await app.request('/web/login', login('token=not-the-token'));
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();
    expect(await wrong.text()).toContain('That token is not right.');
    expect((await app.request('/web/login', login(JSON.stringify({ token: '' }), 'application/json'))).status).toBe(401);
    expect((await app.request('/web/login', login('{}', 'application/json'))).status).toBe(401);
    expect((await app.request('/web/login', login(`token=${token}x`))).status).toBe(401);
    expect((await app.request('/web/messages', message(`${cookieName}=v1.zzzzzzzz.abc.def`))).status).toBe(401);
    const cookie = sessionOf(await app.request('/web/login', login(`token=${token}`)));
    expect((await app.request('/web/messages', message(cookie))).status).toBe(202);
    now += 30 * 24 * 60 * 60 * 1000;
    expect((await app.request('/web/messages', message(cookie))).status).toBe(401);
  });

  it('a cookie of another token (the token changed) is refused', async () => {
    const { app } = await gatewayApp();
    const cookie = sessionOf(await app.request('/web/login', login(`token=${token}`)));
    const other = createGatewayApp([], () => ({ state: 'ready', channels: [], liveSessions: 0 }), [{ method: 'GET', path: '/web/history', handler: async () => new Response('ok') }], [
      webLogin({ token: `${token}-new`, port }),
    ]);
    expect((await other.request('/web/history', { headers: { cookie } })).status).toBe(401);
    expect((await app.request('/web/history?clientId=client-0123456789abcdef', { headers: { cookie } })).status).toBe(200);
  });

  it('logout clears the cookie', async () => {
    const { app } = await gatewayApp();
    const response = await app.request('/web/logout', login('{}', 'application/json'));
    expect(response.status).toBe(200);
    expect(response.headers.get('set-cookie')).toMatch(new RegExp(`^${cookieName}=; Max-Age=0; Path=/; HttpOnly; SameSite=Strict`));
  });

  it('after five failures from one client answers 429 with Retry-After without checking the token, and logs the address only', async () => {
    const lines: string[] = [];
    const { app } = await gatewayApp({ log: (line) => lines.push(line) });
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 5; attempt++) statuses.push((await app.request('/web/login', login(`token=guess-${attempt}`))).status);
    expect(statuses).toEqual([401, 401, 401, 401, 429]);
    const limited = await app.request('/web/login', login(`token=${token}`));
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('set-cookie')).toBeNull();
    expect(await limited.text()).toContain('Too many failed attempts');
    const json = await app.request('/web/login', login(JSON.stringify({ token }), 'application/json'));
    expect(json.status).toBe(429);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/too many failed attempts from unknown/);
    expect(lines.join('\n')).not.toMatch(/guess-|the-right-token/);
  });

  it('counts clients by address: a local proxy\'s by the address it forwards, IPv6 by its /64', async () => {
    const limiter = new LoginRateLimiter({ maxFailures: 1 });
    const { app } = await gatewayApp({ limiter });
    const from = (remoteAddress: string) => ({ incoming: { socket: { remoteAddress, localPort: port } } });
    await app.request('/web/login', login('token=guess', undefined, { 'x-forwarded-for': '203.0.113.9, 198.51.100.7' }), from('127.0.0.1'));
    expect(limiter.retryAfter('198.51.100.7')).toBeDefined();
    expect(limiter.retryAfter('127.0.0.1')).toBeUndefined();
    // A client that is not on loopback cannot choose the address it is counted under.
    await app.request('/web/login', login('token=guess', undefined, { 'x-forwarded-for': '192.0.2.99' }), from('::ffff:192.0.2.1'));
    expect(limiter.retryAfter('192.0.2.1')).toBeDefined();
    expect(limiter.retryAfter('192.0.2.99')).toBeUndefined();
    await app.request('/web/login', login('token=guess'), from('2001:db8:1:2:aaaa::1'));
    expect(limiter.retryAfter('2001:db8:1:2::/64')).toBeDefined();
    expect((await app.request('/web/login', login(`token=${token}`), from('2001:db8:1:2:bbbb::2'))).status).toBe(429);
    expect((await app.request('/web/login', login(`token=${token}`), from('2001:db8:1:3::1'))).status).toBe(303);
  });

  it('names the cookie after the port the request came in on (cookies are shared across a host\'s ports)', async () => {
    const { app } = await gatewayApp();
    const response = await app.request('/web/login', login(`token=${token}`), { incoming: { socket: { remoteAddress: '127.0.0.1', localPort: 9999 } } });
    expect(response.headers.get('set-cookie')).toMatch(/^operator_session_9999=/);
  });

  it('counts guesses sent in parallel one by one, slow bodies too: the right token sent after five wrong ones is refused', async () => {
    const { app } = await gatewayApp();
    // Every body arrives only once all the requests have come in (a client uploading slowly).
    let send = () => undefined as void;
    const sending = new Promise<void>((resolve) => (send = resolve));
    const slowBody = (text: string) =>
      new ReadableStream<Uint8Array>({
        async start(controller) {
          await sending;
          controller.enqueue(new TextEncoder().encode(text));
          controller.close();
        },
      });
    const guesses = [...Array.from({ length: 11 }, (_, attempt) => `guess-${attempt}`), token];
    const responses = guesses.map((guess) =>
      app.request('/web/login', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: slowBody(`token=${guess}`), duplex: 'half' } as RequestInit),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    send();
    const statuses = await Promise.all(responses.map(async (response) => (await response).status));
    expect(statuses).toEqual([401, 401, 401, 401, ...Array<number>(8).fill(429)]);
    expect((await responses.at(-1))!.headers.get('set-cookie')).toBeNull();
  });

  it('refuses an attempt, the right token too, when its limiter cannot count it (503), and says so in the log only', async () => {
    const lines: string[] = [];
    const unreachable: LoginLimiter = { attempt: () => Promise.reject(new Error('the limiter is out of reach')) };
    const { app } = await gatewayApp({ limiter: unreachable, log: (line) => lines.push(line) });
    const form = await app.request('/web/login', login(`token=${token}`));
    expect(form.status).toBe(503);
    expect(form.headers.get('set-cookie')).toBeNull();
    expect(await form.text()).toContain('cannot count failed attempts right now');
    const json = await app.request('/web/login', login(JSON.stringify({ token }), 'application/json'));
    expect(json.status).toBe(503);
    expect(await json.json()).toEqual({ error: expect.stringContaining('lets no one in') });
    expect(lines).toEqual([expect.stringMatching(/refused.*the limiter is out of reach/), expect.stringMatching(/refused/)]);
    expect(lines.join('\n')).not.toContain(token);
  });
});
