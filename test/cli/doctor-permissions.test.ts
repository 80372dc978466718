/**
 * `operator doctor` reports privacy mode, intents and scopes from the fakes: Telegram's privacy
 * mode against a group configured to answer without a mention, Discord's Message Content intent
 * from the application's flags, Slack's granted scopes (`x-oauth-scopes`) against the manifest's.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeDiscordServer, type FakeDiscord } from '../fakes/fake-discord-server.ts';
import { startFakeSlackServer, type FakeSlack } from '../fakes/fake-slack-server.ts';
import { startFakeTelegramServer, type FakeTelegram } from '../fakes/fake-telegram-server.ts';
import { runOperator, type OperatorRun } from '../helpers/operator-process.ts';
import { createTempHome, removeTempHome } from '../helpers/temp-home.ts';
import { requiredSlackScopes } from '../../src/channels/slack/required-scopes.ts';

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
  home = createTempHome('operator-doctor-permissions-');
});
afterEach(() => removeTempHome(home));

/** Writes operator.json with these groups (the browser off: these tests read the platforms' lines). */
function configure(groups: Record<string, { requireMention: boolean }> = {}): void {
  writeFileSync(join(home, 'operator.json'), JSON.stringify({ browser: { enabled: false }, groups }));
}

/** The run's line for the check `name`. */
function line(run: OperatorRun, name: string): string {
  const found = run.stdout.split('\n').find((candidate) => new RegExp(`^(OK|WARN|FAIL) +${name}:`).test(candidate));
  if (!found) throw new Error(`no line for ${name} in:\n${run.stdout}\n${run.stderr}`);
  return found;
}

const telegramEnv = () => ({ HOME: home, OPERATOR_HOME: home, TELEGRAM_BOT_TOKEN: telegram.token, TELEGRAM_API_ROOT: telegram.apiRoot });

describe('operator doctor and what reaches the bot', () => {
  it('warns while privacy mode is on and a Telegram group answers without a mention, saying what to change in BotFather', async () => {
    configure({ 'telegram:-1001234': { requireMention: false }, 'slack:C1': { requireMention: false } });
    telegram.canReadAllGroupMessages = false;
    const on = await runOperator(['doctor'], telegramEnv());
    const warning = line(on, 'Telegram privacy mode');
    expect(warning).toMatch(/^WARN +Telegram privacy mode: on, but telegram:-1001234 is configured to answer without a mention/);
    expect(warning).toContain(`/setprivacy, choose @${telegram.bot.username} and Disable`);
    // Only Telegram's groups count.
    expect(warning).not.toContain('slack:C1');

    telegram.canReadAllGroupMessages = true;
    const off = await runOperator(['doctor'], telegramEnv());
    expect(line(off, 'Telegram privacy mode')).toMatch(/^OK +Telegram privacy mode: off: every group message reaches the bot/);
    for (const run of [on, off]) expect(run.stdout + run.stderr).not.toContain(telegram.token);
  });

  it('is OK with privacy mode on when every Telegram group waits for a mention', async () => {
    configure({ 'telegram:-1001234': { requireMention: true } });
    telegram.canReadAllGroupMessages = false;
    const run = await runOperator(['doctor'], telegramEnv());
    expect(line(run, 'Telegram privacy mode')).toMatch(/^OK +Telegram privacy mode: on: in groups only mentions, replies to the bot and commands reach it/);
  });

  it('fails when the Discord application lacks the Message Content intent, and is OK with it', async () => {
    configure();
    const without = await startFakeDiscordServer({ messageContentAllowed: false });
    try {
      const run = await runOperator(['doctor'], { HOME: home, OPERATOR_HOME: home, DISCORD_BOT_TOKEN: without.token, DISCORD_API_URL: without.apiUrl });
      expect(line(run, 'Discord')).toMatch(/^OK +Discord: the token is accepted/);
      expect(line(run, 'Discord message content')).toMatch(/^FAIL +Discord message content: the Message Content intent is not enabled.*: turn on Bot → Privileged Gateway Intents → Message Content/);
      expect(run.code).toBe(1);
      expect(without.callsOf('getCurrentApplication')).toHaveLength(1);
      expect(run.stdout + run.stderr).not.toContain(without.token);
    } finally {
      await without.close();
    }
    const run = await runOperator(['doctor'], { HOME: home, OPERATOR_HOME: home, DISCORD_BOT_TOKEN: discord.token, DISCORD_API_URL: discord.apiUrl });
    expect(line(run, 'Discord message content')).toMatch(/^OK +Discord message content: the Message Content intent is enabled$/);
  });

  it('names the Slack scopes the token was not granted (a FAIL without chat:write), and is OK with all of them', async () => {
    configure();
    const env = { HOME: home, OPERATOR_HOME: home, SLACK_BOT_TOKEN: slack.bot.token, SLACK_SIGNING_SECRET: slack.signingSecret, SLACK_API_URL: slack.apiUrl };
    slack.grantedScopes = Object.keys(requiredSlackScopes).filter((scope) => scope !== 'users:read' && scope !== 'channels:read');
    const missing = await runOperator(['doctor'], env);
    expect(line(missing, 'Slack')).toMatch(/^OK +Slack: the bot token is accepted/);
    expect(line(missing, 'Slack scopes')).toMatch(/^WARN +Slack scopes: not granted: channels:read \(.*\), users:read \(people's names\): add them under OAuth & Permissions/);

    // Without chat:write the bot can answer nowhere.
    slack.grantedScopes = Object.keys(requiredSlackScopes).filter((scope) => scope !== 'chat:write');
    const mute = await runOperator(['doctor'], env);
    expect(line(mute, 'Slack scopes')).toMatch(/^FAIL +Slack scopes: not granted: chat:write \(answers\):/);
    expect(mute.code).toBe(1);

    slack.grantedScopes = [...Object.keys(requiredSlackScopes), 'chat:write.public'];
    const all = await runOperator(['doctor'], env);
    expect(line(all, 'Slack scopes')).toMatch(/^OK +Slack scopes: all \d+ the manifest asks for are granted$/);
    for (const run of [missing, mute, all]) expect(run.stdout + run.stderr).not.toContain(slack.bot.token);
  });
});
