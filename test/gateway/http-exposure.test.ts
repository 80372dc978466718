/** Exposure: when the web chat needs a login and which direct-message policy it gets. */
import { describe, expect, it } from 'vitest';
import { operatorConfigSchema, type OperatorConfigFile } from '../../src/gateway/config/schema.ts';
import { resolveExposure, webhookSources } from '../../src/gateway/http/index.ts';

const config = (file: OperatorConfigFile = {}) => operatorConfigSchema.parse(file);
const none = { webhooks: [] };

describe('resolveExposure', () => {
  it('the default is local: listening on 127.0.0.1, no login, the web chat open', () => {
    expect(resolveExposure(config(), none)).toEqual({ exposed: false, exposedBecause: [], loginRequired: false, loginBecause: [], webDmPolicy: 'open' });
    expect(resolveExposure(config({ host: '::1' }), none).exposed).toBe(false);
    expect(resolveExposure(config({ host: 'localhost' }), none).exposed).toBe(false);
  });

  it('listening beyond loopback, public hosts, or webhooks expose it: a login, and pairing in the web chat', () => {
    const cases: [OperatorConfigFile, string[], RegExp][] = [
      [{ host: '0.0.0.0' }, [], /listens on 0\.0\.0\.0 \(every interface\)/],
      [{ host: '::' }, [], /every interface/],
      [{ host: '192.0.2.10' }, [], /listens on 192\.0\.2\.10/],
      [{ publicHosts: ['bot.example.com'] }, [], /publicHosts names bot\.example\.com/],
      [{}, ['Telegram webhooks'], /receives Telegram webhooks/],
    ];
    for (const [file, webhooks, reason] of cases) {
      const exposure = resolveExposure(config(file), { webhooks });
      expect(exposure.exposed, JSON.stringify(file)).toBe(true);
      expect(exposure.loginRequired).toBe(true);
      expect(exposure.loginBecause.join('; ')).toMatch(reason);
      expect(exposure.webDmPolicy).toBe('pairing');
    }
  });

  it('a configured web policy wins, exposed or not', () => {
    expect(resolveExposure(config({ host: '0.0.0.0', dmPolicy: { web: 'open' } }), none).webDmPolicy).toBe('open');
    expect(resolveExposure(config({ dmPolicy: { web: 'allowlist' } }), none).webDmPolicy).toBe('allowlist');
  });

  it('a grant of shell to others, with networked sandboxed commands, requires a login on loopback (the web chat stays open)', () => {
    const shell = config({ tools: { grants: [{ tools: ['read', 'shell'], people: ['telegram:1'] }] } });
    const exposure = resolveExposure(shell, none);
    expect(exposure).toMatchObject({ exposed: false, loginRequired: true, webDmPolicy: 'open' });
    expect(exposure.loginBecause.join('; ')).toMatch(/grant gives shell.*sandbox\.network/);
    expect(resolveExposure(config({ tools: { grants: [{ tools: 'all', platforms: ['discord'] }] } }), none).loginRequired).toBe(true);
    // No network for commands, no sandbox (shell stays the owner's), or no shell granted: no login needed.
    expect(resolveExposure(config({ tools: { grants: [{ tools: ['shell'], people: ['telegram:1'] }] }, sandbox: { network: false } }), none).loginRequired).toBe(false);
    expect(resolveExposure(config({ tools: { grants: [{ tools: ['shell'], people: ['telegram:1'] }] }, sandbox: { mode: 'off' } }), none).loginRequired).toBe(false);
    expect(resolveExposure(config({ tools: { grants: [{ tools: ['read', 'write'], people: ['telegram:1'] }] } }), none).loginRequired).toBe(false);
  });

  it('a grant of shell to others needs no login on loopback when commands have a network of their own (slirp4netns)', () => {
    const shell = config({ tools: { grants: [{ tools: ['read', 'shell'], people: ['telegram:1'] }] } });
    expect(resolveExposure(shell, { webhooks: [], ownCommandNetwork: true })).toEqual({ exposed: false, exposedBecause: [], loginRequired: false, loginBecause: [], webDmPolicy: 'open' });
    expect(resolveExposure(shell, { webhooks: [], ownCommandNetwork: false }).loginRequired).toBe(true);
    // Exposed is exposed, whatever the commands' network.
    expect(resolveExposure(config({ host: '0.0.0.0', tools: { grants: [{ tools: ['shell'], people: ['telegram:1'] }] } }), { webhooks: [], ownCommandNetwork: true }).loginRequired).toBe(true);
  });

  it('web.login "always" requires a login on loopback too', () => {
    const exposure = resolveExposure(config({ web: { login: 'always' } }), none);
    expect(exposure).toMatchObject({ exposed: false, loginRequired: true, webDmPolicy: 'open' });
    expect(exposure.loginBecause).toEqual(['web.login is "always"']);
  });
});

describe('webhookSources', () => {
  it('names Telegram webhook mode and Slack HTTP events, not Socket Mode or long polling', () => {
    const telegram = config({ telegram: { webhookUrl: 'https://bot.example.com/webhooks/telegram', webhookSecret: 'a-webhook-secret-0123' } });
    expect(webhookSources({}, telegram)).toEqual(['Telegram webhooks']);
    expect(webhookSources({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_SIGNING_SECRET: 's' }, config())).toEqual(['Slack HTTP events']);
    expect(webhookSources({ SLACK_BOT_TOKEN: 'xoxb-1', SLACK_APP_TOKEN: 'xapp-1' }, config())).toEqual([]);
    expect(webhookSources({ TELEGRAM_BOT_TOKEN: '1:a' }, config())).toEqual([]);
  });
});
