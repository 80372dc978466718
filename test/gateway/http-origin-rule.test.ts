/** The origin rule (CSRF): state-changing browser requests from a foreign site are refused. */
import { describe, expect, it } from 'vitest';
import type { ChannelRoute } from '../../src/channels/types.ts';
import { createGatewayApp } from '../../src/gateway/server.ts';
import { createHostRule, originGuard, originRefusal } from '../../src/gateway/http/index.ts';

const allows = createHostRule({ listenHost: '127.0.0.1', publicHosts: ['bot.example.com'], interfaceAddresses: () => [] });

describe('the origin rule', () => {
  it('refuses a state-changing request from a foreign origin, a null origin, or a cross-site fetch', () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      expect(originRefusal(method, { origin: 'https://evil.example' }, allows), method).toMatch(/cross-origin request refused/);
    }
    expect(originRefusal('POST', { origin: 'null' }, allows)).toMatch(/cross-origin/);
    expect(originRefusal('POST', { origin: 'file://' }, allows)).toMatch(/cross-origin/);
    expect(originRefusal('POST', { origin: 'http://localhost.evil.example:8787' }, allows)).toMatch(/cross-origin/);
    expect(originRefusal('POST', { secFetchSite: 'cross-site' }, allows)).toMatch(/cross-site request refused/);
    expect(originRefusal('POST', { origin: 'http://localhost:8787', secFetchSite: 'cross-site' }, allows)).toMatch(/cross-site/);
  });

  it('lets through the gateway\'s own pages, public hosts, requests without Origin, and reads', () => {
    expect(originRefusal('POST', { origin: 'http://localhost:8787', secFetchSite: 'same-origin' }, allows)).toBeUndefined();
    expect(originRefusal('POST', { origin: 'http://[::1]:8787' }, allows)).toBeUndefined();
    expect(originRefusal('POST', { origin: 'https://BOT.example.com' }, allows)).toBeUndefined();
    // A webhook, curl, the command line: no browser, their own authentication.
    expect(originRefusal('POST', {}, allows)).toBeUndefined();
    for (const method of ['GET', 'HEAD', 'OPTIONS']) expect(originRefusal(method, { origin: 'https://evil.example', secFetchSite: 'cross-site' }, allows), method).toBeUndefined();
  });
});

describe('the origin guard', () => {
  const received: string[] = [];
  const route: ChannelRoute = {
    method: 'POST',
    path: '/web/messages',
    handler: async (request) => {
      received.push(await request.text());
      return new Response(null, { status: 202 });
    },
  };
  const app = createGatewayApp([], () => ({ state: 'ready', channels: [], liveSessions: 0 }), [route], [originGuard(allows)]);

  it('answers 403 with the reason and never runs the route for a foreign origin; passes its own', async () => {
    const refused = await app.request('http://localhost/web/messages', { method: 'POST', body: 'evil', headers: { origin: 'https://evil.example' } });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: string }).error).toMatch(/cross-origin/);
    const own = await app.request('http://localhost/web/messages', { method: 'POST', body: 'mine', headers: { origin: 'http://localhost:8787' } });
    expect(own.status).toBe(202);
    expect(received).toEqual(['mine']);
  });
});
