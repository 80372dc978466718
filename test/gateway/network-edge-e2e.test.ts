/**
 * The network edge through the real gateway process (`bin/operator.js start`): where it listens,
 * the Host and Origin checks, the web chat's login when exposed (token file, cookie, rate limit,
 * OPERATOR_WEB_TOKEN), pairing in an exposed web chat, and a client on a second host (a network
 * namespace joined by a veth pair) that cannot connect by default and meets the login when the
 * gateway listens on every interface.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeModelServer, type FakeModelServer } from '../fakes/fake-model-server.ts';
import { launchChromium, whenChromiumInstalled } from '../helpers/chromium.ts';
import { fakeAnthropicEnv } from '../helpers/fake-model-env.ts';
import { startGateway, type StartedGateway } from '../helpers/gateway-process.ts';
import { createNetworkNamespace, type NetworkNamespace } from '../helpers/network-namespace.ts';
import { runOperator } from '../helpers/operator-process.ts';
import { cookieFrom, rawRequest, type RawResponse } from '../helpers/raw-http.ts';
import { createTempHome, removeTempHome } from '../helpers/temp-home.ts';
import { openSse, type SseStream } from '../helpers/web-harness.ts';

let gateway: StartedGateway | undefined;
let home: string | undefined;
let peer: NetworkNamespace | undefined;
let model: FakeModelServer | undefined;
let stream: SseStream | undefined;
afterEach(async () => {
  stream?.close();
  stream = undefined;
  await gateway?.kill();
  gateway = undefined;
  await peer?.remove();
  peer = undefined;
  await model?.close();
  model = undefined;
  removeTempHome(home);
  home = undefined;
});

const clientId = 'edge-client-0123456789';

function portOf(origin: string): number {
  return Number(new URL(origin).port);
}

function messageBody(id: string, text: string, client = clientId): string {
  return JSON.stringify({ clientId: client, id, text });
}

function postMessage(origin: string, id: string, headers: Record<string, string> = {}): Promise<RawResponse> {
  return rawRequest(`${origin}/web/messages`, { method: 'POST', headers: { host: new URL(origin).host, 'content-type': 'application/json', ...headers }, body: messageBody(id, 'hello') });
}

function logIn(origin: string, token: string): Promise<RawResponse> {
  return rawRequest(`${origin}/web/login`, {
    method: 'POST',
    headers: { host: new URL(origin).host, 'content-type': 'application/x-www-form-urlencoded' },
    body: `token=${encodeURIComponent(token)}`,
  });
}

/** Starts the gateway in a fresh home; `env` on top (HOST, tokens, the model). */
async function start(env: Record<string, string> = {}): Promise<StartedGateway> {
  home ??= createTempHome('operator-network-edge-');
  gateway = await startGateway({ home, env });
  return gateway;
}

describe('the network edge of operator start', () => {
  it('listens on 127.0.0.1 only by default, refuses a foreign Host and a foreign Origin, and answers localhost without a login', async () => {
    const started = await start();
    const port = portOf(started.origin);
    expect(started.output.stdout()).toContain(`listening on 127.0.0.1:${port} (this machine only)`);
    expect(started.output.stdout()).not.toContain('web login');

    // DNS rebinding: a name of the attacker's pointed at 127.0.0.1.
    const rebound = await rawRequest(`http://127.0.0.1:${port}/healthz`, { headers: { host: `rebind.attacker.example:${port}` } });
    expect(rebound.status).toBe(403);
    expect(JSON.parse(rebound.body).error).toMatch(/not one this gateway serves.*publicHosts.*OPERATOR_PUBLIC_HOSTS/);
    expect((await rawRequest(`http://127.0.0.1:${port}/`, { headers: { host: 'rebind.attacker.example' } })).status).toBe(403);

    // CSRF: a page elsewhere posting into the web chat.
    expect((await postMessage(started.origin, 'm1', { origin: 'https://evil.example' })).status).toBe(403);
    expect((await postMessage(started.origin, 'm2', { origin: 'null' })).status).toBe(403);
    expect((await postMessage(started.origin, 'm3', { 'sec-fetch-site': 'cross-site' })).status).toBe(403);

    // Its own page, and this machine's names.
    expect((await postMessage(started.origin, 'm4', { origin: started.origin, 'sec-fetch-site': 'same-origin' })).status).toBe(202);
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `LOCALHOST:${port}`]) {
      const page = await rawRequest(`http://127.0.0.1:${port}/`, { headers: { host } });
      expect(page.status, host).toBe(200);
      expect(page.body).toContain('id="composer"');
    }
    // Local and without a login: no token is made.
    expect(existsSync(join(home!, 'web-token'))).toBe(false);
    expect(await started.stop()).toBe(0);
  });

  it('HOST=0.0.0.0: the web chat asks for a login; wrong tokens are refused and then rate limited; the right one gives a working cookie; the token is never printed', async () => {
    const started = await start({ HOST: '0.0.0.0' });
    const port = portOf(started.origin);
    const tokenFile = join(home!, 'web-token');
    const token = readFileSync(tokenFile, 'utf8').trim();
    expect(statSync(tokenFile).mode & 0o777).toBe(0o600);
    expect(started.output.stdout()).toContain(`listening on 0.0.0.0:${port} (every interface; the web chat asks for a login)`);
    expect(started.output.stdout()).toContain(`web login token: in ${tokenFile}`);

    const page = await rawRequest(`${started.origin}/`, { headers: { host: `localhost:${port}` } });
    expect(page.status).toBe(401);
    expect(page.body).toContain('action="/web/login"');
    expect(page.body).not.toContain('id="composer"');
    const refused = await postMessage(started.origin, 'm1');
    expect(refused.status).toBe(401);
    expect((await rawRequest(`${started.origin}/healthz`, { headers: { host: `localhost:${port}` } })).status).toBe(200);

    const statuses: number[] = [];
    for (let attempt = 0; attempt < 6; attempt++) statuses.push((await logIn(started.origin, `wrong-${attempt}`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 429, 429]);
    const limited = await logIn(started.origin, token);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(cookieFrom(limited, `operator_session_${port}`)).toBeUndefined();

    await started.stop();
    // A restart: the same token (from the file), a fresh rate limit; the cookie outlives the process.
    const again = await start({ HOST: '0.0.0.0' });
    const againPort = portOf(again.origin);
    const success = await logIn(again.origin, token);
    expect(success.status).toBe(303);
    expect(String(success.headers['set-cookie'])).toMatch(/HttpOnly; SameSite=Strict/);
    const cookie = cookieFrom(success, `operator_session_${againPort}`)!;
    expect(cookie).toBeDefined();
    expect((await postMessage(again.origin, 'm2', { cookie })).status).toBe(202);
    const chat = await rawRequest(`${again.origin}/`, { headers: { host: `localhost:${againPort}`, cookie } });
    expect(chat.status).toBe(200);
    expect(chat.body).toContain('id="logout"');

    expect(started.output.all()).not.toContain(token);
    expect(again.output.all()).not.toContain(token);
    expect(started.output.stderr()).toMatch(/web login: too many failed attempts from 127\.0\.0\.1/);
    expect(await again.stop()).toBe(0);
  });

  it('takes OPERATOR_WEB_TOKEN instead of a file, and never prints it', async () => {
    const token = 'an-environment-token-for-the-web-chat';
    const started = await start({ HOST: '0.0.0.0', OPERATOR_WEB_TOKEN: token });
    expect(started.output.stdout()).toContain('web login token: the OPERATOR_WEB_TOKEN variable');
    expect(existsSync(join(home!, 'web-token'))).toBe(false);
    expect((await logIn(started.origin, 'not-it-at-all-no')).status).toBe(401);
    const success = await logIn(started.origin, token);
    expect(success.status).toBe(303);
    const cookie = cookieFrom(success, `operator_session_${portOf(started.origin)}`)!;
    expect((await postMessage(started.origin, 'm1', { cookie })).status).toBe(202);
    expect(started.output.all()).not.toContain(token);
  });

  it('pairs an unknown browser of an exposed web chat: the code comes to its page, and after `operator pairing approve` it talks', async () => {
    model = await startFakeModelServer();
    const started = await start({ HOST: '0.0.0.0', ...fakeAnthropicEnv(model) });
    expect(started.output.stdout()).toContain('web chat access: pairing');
    const token = readFileSync(join(home!, 'web-token'), 'utf8').trim();
    const cookie = cookieFrom(await logIn(started.origin, token), `operator_session_${portOf(started.origin)}`)!;

    stream = await openSse(`${started.origin}/web/events?clientId=${clientId}`, { cookie });
    expect(stream.status).toBe(200);
    expect((await postMessage(started.origin, 'first', { cookie })).status).toBe(202);
    const pairing = await stream.next((event) => event.type === 'message' && String(event.data.text).includes('pairing code'));
    const code = /\n\n([A-Z0-9]{8})\n\n/.exec(String(pairing.data.text))?.[1];
    expect(code).toBeDefined();
    expect(model.requests).toHaveLength(0);

    const approved = await runOperator(['pairing', 'approve', code!], { HOME: home!, OPERATOR_HOME: home! });
    expect(approved.code).toBe(0);
    expect(approved.stdout).toContain(`web:${clientId}`);

    model.enqueue({ text: 'Hello, paired browser.' });
    const from = stream.events.length;
    expect((await postMessage(started.origin, 'second', { cookie })).status).toBe(202);
    await stream.next((event) => (event.type === 'message' || event.type === 'update') && event.data.text === 'Hello, paired browser.', from);
    expect(JSON.stringify(model.requests.at(-1)!.body.messages)).toContain('hello');
  });

  it('a client on another host cannot connect by default; with HOST=0.0.0.0 it connects and meets the login, counted apart from loopback', async () => {
    peer = await createNetworkNamespace();
    const local = await start();
    const localPort = portOf(local.origin);
    const blocked = await peer.request(`http://${peer.hostAddress}:${localPort}/`);
    expect(blocked).toEqual({ ok: false, error: 'ECONNREFUSED' });
    // The same address from this machine is refused too: nothing listens there.
    await expect(rawRequest(`http://${peer.hostAddress}:${localPort}/healthz`)).rejects.toThrow(/ECONNREFUSED/);
    await local.stop();

    const exposed = await start({ HOST: '0.0.0.0' });
    const port = portOf(exposed.origin);
    const remote = `http://${peer.hostAddress}:${port}`;
    const page = await peer.request(`${remote}/`);
    expect(page).toMatchObject({ ok: true, status: 401 });
    expect(page.ok && page.body).toContain('action="/web/login"');
    const message = await peer.request(`${remote}/web/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: messageBody('r1', 'from afar') });
    expect(message).toMatchObject({ ok: true, status: 401 });
    // A rebinding name is refused from there as well.
    expect(await peer.request(`${remote}/healthz`, { headers: { host: 'rebind.attacker.example' } })).toMatchObject({ ok: true, status: 403 });

    // Loopback uses up its attempts; the other host's are its own.
    for (let attempt = 0; attempt < 5; attempt++) await logIn(exposed.origin, `wrong-${attempt}`);
    expect((await logIn(exposed.origin, 'wrong-again')).status).toBe(429);
    const form = (body: string) => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
    expect(await peer.request(`${remote}/web/login`, form('token=wrong-remote'))).toMatchObject({ ok: true, status: 401 });
    const token = readFileSync(join(home!, 'web-token'), 'utf8').trim();
    const success = await peer.request(`${remote}/web/login`, form(`token=${encodeURIComponent(token)}`));
    expect(success).toMatchObject({ ok: true, status: 303 });
    const cookie = success.ok ? cookieFrom(success, `operator_session_${port}`) : undefined;
    expect(cookie).toBeDefined();
    const accepted = await peer.request(`${remote}/web/messages`, { method: 'POST', headers: { 'content-type': 'application/json', cookie: cookie! }, body: messageBody('r2', 'from afar') });
    expect(accepted).toMatchObject({ ok: true, status: 202 });
    expect(exposed.output.all()).not.toContain(token);
  });
});

whenChromiumInstalled('the web chat login in a browser', 'the browser test of the web login', () => {
  describe('the web chat login in a browser', () => {
    let browser: Browser | undefined;
    afterEach(async () => {
      await browser?.close();
      browser = undefined;
    });

    it('web.login "always": the login form leads to the chat, which answers; a lost session and the logout button go back to the login page', async () => {
      model = await startFakeModelServer();
      home = createTempHome('operator-network-edge-');
      writeFileSync(join(home, 'operator.json'), JSON.stringify({ web: { login: 'always' } }));
      const started = await start(fakeAnthropicEnv(model));
      expect(started.output.stdout()).toContain('web login: required because web.login is "always"');
      const token = readFileSync(join(home, 'web-token'), 'utf8').trim();
      browser = await launchChromium();
      const context = await browser.newContext();
      const page = await context.newPage();
      page.setDefaultTimeout(10_000);
      await page.goto(`${started.origin}/`);
      await page.locator('input[name="token"]').fill('not the token at all');
      await page.locator('button[type="submit"]').click();
      await page.locator('.error', { hasText: 'That token is not right.' }).waitFor();
      await page.locator('input[name="token"]').fill(token);
      await page.locator('button[type="submit"]').click();
      await page.locator('#status[data-state="connected"]').waitFor();

      model.enqueue({ text: 'Hello behind the login.' });
      await page.locator('#input').fill('hi');
      await page.keyboard.press('Enter');
      await page.locator('.message.bot', { hasText: 'Hello behind the login.' }).waitFor();

      // The session is gone (cookie cleared): the next request's 401 brings the login page.
      await context.clearCookies();
      await page.locator('#input').fill('still there?');
      await page.keyboard.press('Enter');
      await page.locator('input[name="token"]').waitFor();

      await page.locator('input[name="token"]').fill(token);
      await page.locator('button[type="submit"]').click();
      await page.locator('#logout').click();
      await page.locator('input[name="token"]').waitFor();
      expect((await context.cookies()).filter((cookie) => cookie.name.startsWith('operator_session_'))).toEqual([]);
    });
  });
});
