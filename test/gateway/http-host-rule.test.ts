/**
 * The host rule (DNS rebinding): which Host names the gateway answers to, and the guard that
 * refuses the rest on every route.
 */
import { describe, expect, it } from 'vitest';
import { createGatewayApp } from '../../src/gateway/server.ts';
import { createHostRule, hostGuard, hostNameOf } from '../../src/gateway/http/index.ts';

describe('host names', () => {
  it('reads the name of a Host header: port dropped, lower case, IPv6 without brackets, IP addresses in one form', () => {
    expect(hostNameOf('LocalHost:8787')).toBe('localhost');
    expect(hostNameOf('Bot.Example.com')).toBe('bot.example.com');
    expect(hostNameOf('[::1]:8787')).toBe('::1');
    expect(hostNameOf('[0:0:0:0:0:0:0:1]')).toBe('::1');
    expect(hostNameOf('127.1:80')).toBe('127.0.0.1');
    expect(hostNameOf('0x7f000001')).toBe('127.0.0.1');
  });

  it('refuses what is not a host: a userinfo, a path, an unbracketed port on IPv6, an empty value', () => {
    for (const header of ['evil.example@localhost', 'localhost/evil', 'localhost:80:80', '', '999.1.1.1', 'local host', '[::1']) {
      expect(hostNameOf(header), header).toBeUndefined();
    }
  });
});

describe('the host rule', () => {
  const machine = ['127.0.0.1', '::1', '192.0.2.10', 'fe80::1'];

  it('on loopback allows localhost, loopback addresses, the public hosts and the webhook host, nothing else', () => {
    const allows = createHostRule({
      listenHost: '127.0.0.1',
      publicHosts: ['Bot.Example.com', '[2001:db8::5]'],
      webhookUrl: 'https://hooks.example.org/webhooks/telegram',
      interfaceAddresses: () => machine,
    });
    for (const host of ['localhost', '127.0.0.1', '127.8.9.10', '::1', '::ffff:7f00:1', 'bot.example.com', '2001:db8::5', 'hooks.example.org']) expect(allows(host), host).toBe(true);
    // A rebinding name pointed at 127.0.0.1, and this machine's other addresses (not listened on).
    for (const host of ['rebind.attacker.example', 'localhost.attacker.example', 'example.com', '192.0.2.10', 'fe80::1']) expect(allows(host), host).toBe(false);
  });

  it('on every interface also allows this machine\'s addresses (an IP address cannot be rebound), never other names', () => {
    const allows = createHostRule({ listenHost: '0.0.0.0', publicHosts: [], interfaceAddresses: () => machine });
    expect(allows('192.0.2.10')).toBe(true);
    expect(allows('fe80::1')).toBe(true);
    expect(allows('192.0.2.11')).toBe(false);
    expect(allows('myhost.lan')).toBe(false);
    expect(allows('0.0.0.0')).toBe(false);
  });

  it('on one address allows that address', () => {
    const allows = createHostRule({ listenHost: '192.0.2.10', publicHosts: [], interfaceAddresses: () => machine });
    expect(allows('192.0.2.10')).toBe(true);
    expect(allows('fe80::1')).toBe(false);
  });
});

describe('the host guard', () => {
  const app = createGatewayApp([], () => ({ state: 'ready', channels: [], liveSessions: 0 }), [], [
    hostGuard(createHostRule({ listenHost: '127.0.0.1', publicHosts: ['bot.example.com'], interfaceAddresses: () => [] })),
  ]);

  it('refuses a foreign Host with 403 on every route, /healthz included, naming publicHosts and OPERATOR_PUBLIC_HOSTS', async () => {
    for (const path of ['/healthz', '/', '/web/messages', '/nowhere']) {
      const response = await app.request(`http://localhost${path}`, { headers: { host: 'rebind.attacker.example:8787' } });
      expect(response.status, path).toBe(403);
      const { error } = (await response.json()) as { error: string };
      expect(error).toContain('rebind.attacker.example');
      expect(error).toContain('publicHosts');
      expect(error).toContain('OPERATOR_PUBLIC_HOSTS');
    }
  });

  it('answers localhost, loopback and public hosts, whatever the port and case', async () => {
    for (const host of ['localhost:8787', '127.0.0.1:1', '[::1]:8787', 'BOT.example.com']) {
      expect((await app.request('http://localhost/healthz', { headers: { host } })).status, host).toBe(200);
    }
  });

  it('checks the URL too: an absolute request target naming another host is refused', async () => {
    expect((await app.request('http://rebind.attacker.example/healthz', { headers: { host: 'localhost' } })).status).toBe(403);
  });
});
