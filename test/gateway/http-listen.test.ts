/** Where the gateway listens, and how the start-up output and the command line name the address. */
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChannelAdapter } from '../../src/channels/types.ts';
import { operatorConfigSchema } from '../../src/gateway/config/schema.ts';
import { edgeBanner, localGatewayUrl, resolveExposure, webChatUrl } from '../../src/gateway/http/index.ts';
import { createGatewayApp, listen } from '../../src/gateway/server.ts';

const app = createGatewayApp([], () => ({ state: 'ready', channels: [], liveSessions: 0 }));
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

describe('listen', () => {
  it('listens on 127.0.0.1 unless told otherwise', async () => {
    const server = await listen(app, 0);
    closers.push(server.close);
    expect((server.server.address() as AddressInfo).address).toBe('127.0.0.1');
  });

  it('rejects, saying where, when the port is taken or the address is not this machine\'s', async () => {
    const first = await listen(app, 0);
    closers.push(first.close);
    await expect(listen(app, first.port)).rejects.toThrow(`cannot listen on 127.0.0.1:${first.port}: EADDRINUSE`);
    await expect(listen(app, 0, '203.0.113.77')).rejects.toThrow('cannot listen on 203.0.113.77:0: EADDRNOTAVAIL');
  });
});

describe('the first requests', () => {
  it('answers requests that arrive together while the HTTP handler loads, bodies whole, each once', async () => {
    const echoAdapter = { platform: 'echo', routes: () => [{ method: 'POST', path: '/echo', handler: async (request: Request) => new Response(`got ${(await request.text()).length}`) }] } as unknown as ChannelAdapter;
    const echo = createGatewayApp([echoAdapter], () => ({ state: 'ready', channels: [], liveSessions: 0 }));
    const server = await listen(echo, 0);
    closers.push(server.close);
    const base = `http://127.0.0.1:${server.port}`;
    const bodies = Array.from({ length: 8 }, (_, i) => 'x'.repeat(1000 * (i + 1)));
    const answers = await Promise.all([...bodies.map((body) => fetch(`${base}/echo`, { method: 'POST', body }).then((response) => response.text())), fetch(`${base}/healthz`).then((response) => response.status)]);
    expect(answers).toEqual([...bodies.map((body) => `got ${body.length}`), 200]);
  });
});

describe('the addresses in words', () => {
  it('the web chat is at localhost for loopback and every interface, else at the address', () => {
    expect(webChatUrl('127.0.0.1', 8787)).toBe('http://localhost:8787/');
    expect(webChatUrl('0.0.0.0', 8787)).toBe('http://localhost:8787/');
    expect(webChatUrl('::', 8787)).toBe('http://localhost:8787/');
    expect(webChatUrl('192.0.2.10', 8787)).toBe('http://192.0.2.10:8787/');
    expect(webChatUrl('2001:db8::1', 8787)).toBe('http://[2001:db8::1]:8787/');
  });

  it('the command line reaches a gateway on every interface through loopback, else at its address', () => {
    expect(localGatewayUrl('127.0.0.1', 1)).toBe('http://127.0.0.1:1');
    expect(localGatewayUrl('0.0.0.0', 1)).toBe('http://127.0.0.1:1');
    expect(localGatewayUrl('::', 1)).toBe('http://[::1]:1');
    expect(localGatewayUrl('192.0.2.10', 1)).toBe('http://192.0.2.10:1');
  });

  it('the banner says where it listens, why a login is required and where the token is, never the token', () => {
    const local = resolveExposure(operatorConfigSchema.parse({}), { webhooks: [] });
    expect(edgeBanner({ host: '127.0.0.1', port: 8787, exposure: local, webPolicyConfigured: false })).toEqual(['  listening on 127.0.0.1:8787 (this machine only)']);
    const exposed = resolveExposure(operatorConfigSchema.parse({ host: '0.0.0.0' }), { webhooks: ['Slack HTTP events'] });
    expect(edgeBanner({ host: '0.0.0.0', port: 8787, exposure: exposed, token: { kind: 'file', path: '/home/op/.operator/web-token', created: true }, webPolicyConfigured: false })).toEqual([
      '  listening on 0.0.0.0:8787 (every interface; the web chat asks for a login)',
      '  web login: required because it listens on 0.0.0.0 (every interface); it receives Slack HTTP events',
      '  web login token: in /home/op/.operator/web-token (made now, readable by this user only)',
      '  web chat access: pairing, as the gateway is exposed (a new browser gets a code; approve it with `operator pairing approve CODE`)',
    ]);
    const banner = edgeBanner({ host: '::', port: 1, exposure: exposed, token: { kind: 'environment' }, webPolicyConfigured: true });
    expect(banner[0]).toBe('  listening on [::]:1 (every interface; the web chat asks for a login)');
    expect(banner).toContain('  web login token: the OPERATOR_WEB_TOKEN variable');
    expect(banner.join('\n')).not.toContain('web chat access');
  });
});
