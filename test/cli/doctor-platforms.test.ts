/**
 * `operator doctor` against the fake platforms: a wrong token on Telegram, Slack and Discord
 * fails naming the platform and never shows the token; the Telegram webhook is compared with
 * TELEGRAM_WEBHOOK_URL.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeDiscordServer, type FakeDiscord } from '../fakes/fake-discord-server.ts';
import { startFakeSlackServer, type FakeSlack } from '../fakes/fake-slack-server.ts';
import { startFakeTelegramServer, type FakeTelegram } from '../fakes/fake-telegram-server.ts';
import { runOperator, type OperatorRun } from '../helpers/operator-process.ts';
import { createTempHome, removeTempHome } from '../helpers/temp-home.ts';

let telegram: FakeTelegram;
let slack: FakeSlack;
let discord: FakeDiscord;
let home: string;

beforeAll(async () => {
  [telegram, slack, discord] = await Promise.all([startFakeTelegramServer(), startFakeSlackServer(), startFakeDiscordServer()]);
});
afterAll(async () => {
  await Promise.all([telegram.close(), slack.close(), discord.close()]);
});
beforeEach(() => {
  home = createTempHome('operator-doctor-platforms-');
  writeFileSync(join(home, 'operator.json'), JSON.stringify({ browser: { enabled: false } }));
});
afterEach(() => removeTempHome(home));

/** The run's line for the check `name`. */
function line(run: OperatorRun, name: string): string {
  const found = run.stdout.split('\n').find((candidate) => new RegExp(`^(OK|WARN|FAIL) +${name}:`).test(candidate));
  if (!found) throw new Error(`no line for ${name} in:\n${run.stdout}\n${run.stderr}`);
  return found;
}

/** The model is left unconfigured (its own FAIL); these tests read the platforms' lines. */
function env(platforms: Record<string, string>): Record<string, string> {
  return { HOME: home, OPERATOR_HOME: home, ...platforms };
}

describe('operator doctor and the platforms', () => {
  it('fails on a wrong token for each platform, naming it, and never shows the token', async () => {
    const wrong = { telegram: '987654321:AAWrongTelegramTokenXYZ_0123456789', slack: 'xoxb-9999-8888-WrongSlackTokenXYZ', discord: 'WrongDiscordToken.XYZ.0123456789' };
    // The fake Bot API takes any token: it answers getMe as Telegram answers a wrong one.
    telegram.failNext('getMe', { status: 401 });
    const run = await runOperator(
      ['doctor'],
      env({
        TELEGRAM_BOT_TOKEN: wrong.telegram,
        TELEGRAM_API_ROOT: telegram.apiRoot,
        SLACK_BOT_TOKEN: wrong.slack,
        SLACK_SIGNING_SECRET: slack.signingSecret,
        SLACK_API_URL: slack.apiUrl,
        DISCORD_BOT_TOKEN: wrong.discord,
        DISCORD_API_URL: discord.apiUrl,
      }),
    );
    expect(run.code).toBe(1);
    expect(line(run, 'Telegram')).toMatch(/^FAIL +Telegram: the token is refused \(401 Unauthorized\) at http:\/\/127\.0\.0\.1:\d+: check TELEGRAM_BOT_TOKEN/);
    expect(line(run, 'Slack')).toMatch(/^FAIL +Slack: the bot token is refused \(invalid_auth\).*: check SLACK_BOT_TOKEN/);
    expect(line(run, 'Discord')).toMatch(/^FAIL +Discord: the token is refused \(401 .*\).*: check DISCORD_BOT_TOKEN/);
    expect(telegram.callsOf('getMe').at(-1)?.status).toBe(401);
    expect(slack.callsOf('auth.test').at(-1)?.error).toBe('invalid_auth');
    expect(discord.callsOf('getCurrentUser').at(-1)?.status).toBe(401);
    for (const token of Object.values(wrong)) {
      expect(run.stdout).not.toContain(token);
      expect(run.stderr).not.toContain(token);
    }
  });

  it('fails when a platform cannot be reached, without the token in the address', async () => {
    const token = '111111111:AAUnreachableTokenXYZ_0123456789';
    const run = await runOperator(['doctor'], env({ TELEGRAM_BOT_TOKEN: token, TELEGRAM_API_ROOT: 'http://127.0.0.1:9' }));
    expect(run.code).toBe(1);
    expect(line(run, 'Telegram')).toMatch(/^FAIL +Telegram: cannot reach http:\/\/127\.0\.0\.1:9: check TELEGRAM_API_ROOT/);
    expect(run.stdout + run.stderr).not.toContain(token);
  });

  it('fails when Slack has a bot token but neither a signing secret nor an app token', async () => {
    const run = await runOperator(['doctor', '--offline'], env({ SLACK_BOT_TOKEN: slack.bot.token, SLACK_API_URL: slack.apiUrl }));
    expect(line(run, 'Slack')).toMatch(/^FAIL .*SLACK_SIGNING_SECRET.*SLACK_APP_TOKEN/);
  });

  it('warns while the registered webhook differs from TELEGRAM_WEBHOOK_URL, and is OK once it matches', async () => {
    const url = 'https://bot.example.com/webhooks/telegram';
    const settings = env({ TELEGRAM_BOT_TOKEN: telegram.token, TELEGRAM_API_ROOT: telegram.apiRoot, TELEGRAM_WEBHOOK_URL: url, TELEGRAM_WEBHOOK_SECRET: 'webhook-secret-123' });
    const before = await runOperator(['doctor'], settings);
    expect(line(before, 'Telegram')).toMatch(/^OK /);
    expect(line(before, 'Telegram webhook')).toMatch(/^WARN +Telegram webhook: TELEGRAM_WEBHOOK_URL is https:\/\/bot\.example\.com\/webhooks\/telegram, but none is registered: the gateway registers it at its start/);

    const registered = await fetch(`${telegram.apiRoot}/bot${telegram.token}/setWebhook`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ url, secret_token: 'webhook-secret-123' }) });
    expect(registered.status).toBe(200);
    const after = await runOperator(['doctor'], settings);
    expect(line(after, 'Telegram webhook')).toMatch(/^OK +Telegram webhook: registered at https:\/\/bot\.example\.com\/webhooks\/telegram$/);
    expect(after.stdout + after.stderr).not.toContain('webhook-secret-123');
    expect(after.stdout + after.stderr).not.toContain(telegram.token);
  });
});
