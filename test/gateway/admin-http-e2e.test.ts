/**
 * Who may use the admin console, through the real gateway process (`bin/operator.js start`): only
 * the holder of the admin token. Refused: no token, a wrong bearer token, a forged, expired or
 * foreign session cookie, the web chat's login (its cookie, its token), a change without the
 * session's CSRF token or with a wrong one, a change from another site; too many wrong tokens
 * from one client are refused without being checked. Let in: the bearer token (JSON API and the
 * event stream) and a session made by logging in. No answer carries the token or a secret of the
 * environment.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCookieName, AdminSessions, adminSessionLifetimeMs } from '../../src/gateway/admin/admin-session.ts';
import { adminTokenPath } from '../../src/gateway/admin/admin-token.ts';
import { fakeAnthropicKey } from '../helpers/fake-model-env.ts';
import { startGateway, type StartedGateway } from '../helpers/gateway-process.ts';
import { cookieFrom, rawRequest, type RawResponse } from '../helpers/raw-http.ts';
import { createTempHome, removeTempHome } from '../helpers/temp-home.ts';
import { openSse } from '../helpers/web-harness.ts';
import { PipelineContext } from '../../src/pipelines/engine/pipeline-context.ts';
import { parsePipeline } from '../../src/pipelines/graph/parse.ts';
import { RunFolder } from '../../src/pipelines/run-folder/run-folder.ts';

const webToken = 'the-web-chat-token-0123456789';
let home: string;
let gateway: StartedGateway;
let origin: string;
let port: number;
let token: string;

beforeAll(async () => {
  home = createTempHome('operator-admin-http-');
  // A pipeline run's folder, as a run leaves it; written here knowing no secret, so its prompt keeps the
  // model key: the console's own scrubbing must take it out.
  const folder = await RunFolder.open({ root: join(home, 'runs'), record: { id: 'ab12cd', pipeline: 'release', startedAt: Date.now() }, goal: 'Publish the notes', model: 'claude-sonnet-4-6', provider: 'anthropic', keep: 200, env: {} });
  const draft = parsePipeline('digraph release { start [shape=Mdiamond]; draft [prompt="Draft"]; done [shape=Msquare]; start -> draft -> done }').nodes.get('draft')!;
  await folder.hook.beforeNode!(draft, new PipelineContext(), { runId: 'ab12cd', attempt: 1 });
  folder.onEvent({ type: 'node_prompt', runId: 'ab12cd', node: 'draft', attempt: 1, prompt: `Draft the notes (key ${fakeAnthropicKey}-0123456789)` });
  await folder.hook.afterNode!(draft, new PipelineContext(), { status: 'success', output: 'Notes for 1.2', usage: { input: 1_000, output: 100, cacheRead: 0, cacheWrite: 0, cost: 0.0045 } }, { runId: 'ab12cd', attempt: 1, durationMs: 5, final: true });
  await folder.finish({ status: 'finished', endedAt: Date.now() });
  // The web chat asks for its own login too: its session must not open the console.
  writeFileSync(join(home, 'operator.json'), JSON.stringify({ web: { login: 'always' } }));
  gateway = await startGateway({ home, env: { ANTHROPIC_API_KEY: fakeAnthropicKey, ANTHROPIC_BASE_URL: 'http://127.0.0.1:9', OPERATOR_WEB_TOKEN: webToken } });
  origin = gateway.origin;
  port = Number(new URL(origin).port);
  token = readFileSync(adminTokenPath(home), 'utf8').trim();
});

afterAll(async () => {
  await gateway?.stop();
  removeTempHome(home);
});

const host = () => new URL(origin).host;

function get(path: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return rawRequest(`${origin}${path}`, { headers: { host: host(), ...headers } });
}

function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
  return rawRequest(`${origin}${path}`, { method: 'POST', headers: { host: host(), 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

function logIn(given: string): Promise<RawResponse> {
  return rawRequest(`${origin}/admin/login`, { method: 'POST', headers: { host: host(), 'content-type': 'application/x-www-form-urlencoded', origin }, body: `token=${encodeURIComponent(given)}` });
}

/** Nothing the console answers may carry the admin token, the web token or the model key. */
function expectNoSecret(response: RawResponse): void {
  for (const secret of [token, webToken, fakeAnthropicKey]) expect(response.body).not.toContain(secret);
}

describe('the admin console over HTTP', () => {
  it('makes the admin token at the first start, readable by its owner only, and says where the console is', () => {
    expect(statSync(adminTokenPath(home)).mode & 0o777).toBe(0o600);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(gateway.output.stdout()).toContain(`admin console: ${origin}/admin`);
    expect(gateway.output.all()).not.toContain(token);
  });

  it('refuses every request without the token: the page shows the login, the API answers 401', async () => {
    const page = await get('/admin');
    expect(page.status).toBe(401);
    expect(page.body).toContain('Log in to the admin console');
    expect(String(page.headers['content-security-policy'])).toContain("default-src 'none'");
    for (const path of ['/admin/api/conversations', '/admin/api/jobs', '/admin/api/pairing', '/admin/api/profiles', '/admin/api/usage', '/admin/api/events', '/admin/api/conversation?key=web:x', '/admin/api/runs', '/admin/api/run?id=ab12cd', '/admin/anything']) {
      const response = await get(path);
      expect(response.status, path).toBe(401);
      expectNoSecret(response);
    }
    for (const path of ['/admin/api/jobs', '/admin/api/pairing', '/admin/api/profiles', '/admin/logout']) {
      expect((await post(path, { action: 'reload', profile: 'default' }, { origin })).status, path).toBe(401);
    }
  });

  it('refuses the web chat\'s login: its token as a bearer, and its session cookie', async () => {
    expect((await get('/admin/api/jobs', { authorization: `Bearer ${webToken}` })).status).toBe(401);
    expect((await get('/admin/api/run?id=ab12cd', { authorization: `Bearer ${webToken}` })).status).toBe(401);
    const web = await rawRequest(`${origin}/web/login`, { method: 'POST', headers: { host: host(), 'content-type': 'application/x-www-form-urlencoded', origin }, body: `token=${webToken}` });
    const webCookie = cookieFrom(web, `operator_session_${port}`);
    expect(webCookie).toBeDefined();
    expect((await get('/admin/api/jobs', { cookie: webCookie! })).status).toBe(401);
    // Its value under the console's cookie name is no session either.
    expect((await get('/admin/api/jobs', { cookie: `${adminCookieName(port)}=${webCookie!.split('=')[1]}` })).status).toBe(401);
  });

  it('lets the bearer token in for the JSON API and the live events, with no CSRF token needed', async () => {
    const bearer = { authorization: `Bearer ${token}` };
    const conversations = await get('/admin/api/conversations', bearer);
    expect(conversations.status).toBe(200);
    expect(JSON.parse(conversations.body)).toEqual({ total: 0, matched: 0, conversations: [] });
    const profiles = await get('/admin/api/profiles', bearer);
    expect(JSON.parse(profiles.body).profiles[0]).toMatchObject({ name: 'default', report: { problems: [] } });
    const change = await post('/admin/api/jobs', { action: 'pause', id: 'nosuchjob' }, bearer);
    expect(change.status).toBe(200);
    expect(JSON.parse(change.body)).toEqual({ ok: false, text: 'no scheduled job has the id "nosuchjob"; list the jobs to see their ids' });
    expect((await post('/admin/api/jobs', { action: 'explode', id: 'x' }, bearer)).status).toBe(400);
    const stream = await openSse(`${origin}/admin/api/events`, bearer);
    try {
      expect(stream.status).toBe(200);
      await stream.next((event) => event.type === 'ready');
    } finally {
      stream.close();
    }
    for (const response of [conversations, profiles, change]) expectNoSecret(response);
  });

  it("lists the pipeline runs, each linking to its page, and gives a run's steps with their prompts and responses", async () => {
    const bearer = { authorization: `Bearer ${token}` };
    const runs = await get('/admin/api/runs', bearer);
    expect(JSON.parse(runs.body)).toEqual({ runs: [expect.objectContaining({ id: 'ab12cd', graph: 'release', goal: 'Publish the notes', status: 'finished', cost: 0.0045, link: '#run/ab12cd' })] });
    const run = await get('/admin/api/run?id=ab12cd', bearer);
    const detail = JSON.parse(run.body);
    expect(detail.run).toMatchObject({ id: 'ab12cd', status: 'finished', nodes: ['draft'] });
    expect(detail.steps).toEqual([expect.objectContaining({ node: 'draft', outcome: 'success', attempts: 1, prompt: 'Draft the notes (key [redacted]-0123456789)', response: 'Notes for 1.2' })]);
    expect(JSON.parse((await get('/admin/api/run?id=../../etc', bearer)).body)).toEqual({ error: '"../../etc" is not a run id (six hex digits, as `operator pipeline list` shows).' });
    expect(JSON.parse((await get('/admin/api/run?id=ffffff', bearer)).body).error).toContain('No run folder for ffffff');
    for (const response of [runs, run]) expectNoSecret(response);
    // The page has the tab.
    const login = await rawRequest(`${origin}/admin/login`, { method: 'POST', headers: { host: host(), 'content-type': 'application/x-www-form-urlencoded', origin }, body: `token=${token}` });
    const page = await get('/admin', { cookie: cookieFrom(login, adminCookieName(port))! });
    expect(page.body).toContain('<a href="#runs" data-page="runs">Pipelines</a>');
  });

  it('logs in with the token: an HttpOnly, SameSite=Strict cookie for the console, and a page carrying its CSRF token', async () => {
    const wrong = await logIn('not-the-admin-token-at-all');
    expect(wrong.status).toBe(401);
    expect(wrong.body).toContain('That token is not right.');
    const right = await logIn(token);
    expect(right.status).toBe(303);
    expect(right.headers.location).toBe('/admin');
    const setCookie = String(right.headers['set-cookie']);
    expect(setCookie).toMatch(new RegExp(`^${adminCookieName(port)}=v1\\.`));
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Strict');
    expect(setCookie).toContain('Path=/admin');
    const cookie = cookieFrom(right, adminCookieName(port))!;
    const page = await get('/admin', { cookie });
    expect(page.status).toBe(200);
    const csrf = JSON.parse(/<script type="application\/json" id="admin-config">(.*?)<\/script>/.exec(page.body)![1]!).csrf as string;
    expect(csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expectNoSecret(page);
    expect((await get('/admin/api/jobs', { cookie })).status).toBe(200);

    // Changes: the CSRF token is required, and must be this session's.
    expect((await post('/admin/api/jobs', { action: 'pause', id: 'nosuchjob' }, { cookie, origin })).status).toBe(403);
    const other = new AdminSessions(token).create(Date.now());
    expect((await post('/admin/api/jobs', { action: 'pause', id: 'nosuchjob' }, { cookie, origin, 'x-csrf-token': new AdminSessions(token).csrfOf(other) })).status).toBe(403);
    const accepted = await post('/admin/api/jobs', { action: 'pause', id: 'nosuchjob' }, { cookie, origin, 'x-csrf-token': csrf });
    expect(accepted.status).toBe(200);
    expect(JSON.parse(accepted.body).ok).toBe(false);

    // From another site: refused whatever it carries.
    const evil = await post('/admin/api/jobs', { action: 'pause', id: 'nosuchjob' }, { cookie, origin: 'https://evil.example', 'x-csrf-token': csrf });
    expect(evil.status).toBe(403);
    expect(JSON.parse(evil.body).error).toMatch(/cross-origin request refused/);
    expect((await post('/admin/api/jobs', { action: 'pause', id: 'nosuchjob' }, { cookie, 'sec-fetch-site': 'cross-site', 'x-csrf-token': csrf })).status).toBe(403);
    expect((await rawRequest(`${origin}/admin/login`, { method: 'POST', headers: { host: host(), 'content-type': 'application/x-www-form-urlencoded', origin: 'https://evil.example' }, body: `token=${token}` })).status).toBe(403);

    // Logging out clears the cookie.
    const out = await post('/admin/logout', {}, { cookie, origin, 'x-csrf-token': csrf });
    expect(out.status).toBe(200);
    expect(String(out.headers['set-cookie'])).toMatch(new RegExp(`^${adminCookieName(port)}=; Path=/admin; Max-Age=0`));
  });

  it('refuses a forged, an expired and a foreign session cookie', async () => {
    const sessions = new AdminSessions(token);
    const expired = sessions.create(Date.now() - adminSessionLifetimeMs - 60_000);
    const [, expiry, nonce] = sessions.create(Date.now()).split('.');
    const forged = `v1.${expiry}.${nonce}.${'A'.repeat(43)}`;
    const foreign = new AdminSessions('another-admin-token-0123456789').create(Date.now());
    for (const value of [expired, forged, foreign, 'v1.zzzz.abc.def', 'garbage']) {
      expect((await get('/admin/api/jobs', { cookie: `${adminCookieName(port)}=${value}` })).status, value).toBe(401);
      expect((await get('/admin', { cookie: `${adminCookieName(port)}=${value}` })).status).toBe(401);
    }
    // Valid, for contrast.
    expect((await get('/admin/api/jobs', { cookie: `${adminCookieName(port)}=${sessions.create(Date.now())}` })).status).toBe(200);
  });

  it('refuses a client after five wrong tokens, without checking its guesses, the right one included', async () => {
    for (let attempt = 1; attempt <= 4; attempt++) expect((await logIn(`wrong-guess-number-${attempt}-xxxxxxxx`)).status).toBe(401);
    expect((await get('/admin/api/jobs', { authorization: 'Bearer wrong-guess-number-5-xxxxxxxx' })).status).toBe(429);
    const refused = await logIn(token);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.body).toContain('Too many wrong tokens');
    const bearer = await get('/admin/api/jobs', { authorization: `Bearer ${token}` });
    expect(bearer.status).toBe(429);
    expect(gateway.output.all()).toMatch(/admin console: too many wrong tokens from 127\.0\.0\.1/);
    expect(gateway.output.all()).not.toContain(token);
  });
});
