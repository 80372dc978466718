/**
 * `operator doctor` run as a person runs it, against the fake model server, fake Telegram, fake
 * Slack and fake Discord: all healthy, `--offline` (no request reaches any fake), a model key
 * refused, no model, an invalid operator.json, an unwritable OPERATOR_HOME, the browser enabled
 * without chromium, an unreachable Redis, and an unknown option.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeDiscordServer, type FakeDiscord } from '../fakes/fake-discord-server.ts';
import { startFakeModelServer, type FakeModelServer } from '../fakes/fake-model-server.ts';
import { startFakeSlackServer, type FakeSlack } from '../fakes/fake-slack-server.ts';
import { startFakeTelegramServer, type FakeTelegram } from '../fakes/fake-telegram-server.ts';
import { fakeAnthropicEnv, fakeAnthropicKey } from '../helpers/fake-model-env.ts';
import { runOperator, type OperatorRun } from '../helpers/operator-process.ts';
import { createTempHome, removeTempHome } from '../helpers/temp-home.ts';

let model: FakeModelServer;
let telegram: FakeTelegram;
let slack: FakeSlack;
let discord: FakeDiscord;
let home: string;

beforeAll(async () => {
  [model, telegram, slack, discord] = await Promise.all([startFakeModelServer(), startFakeTelegramServer(), startFakeSlackServer(), startFakeDiscordServer()]);
});
afterAll(async () => {
  await Promise.all([model.close(), telegram.close(), slack.close(), discord.close()]);
});
beforeEach(() => {
  home = createTempHome('operator-doctor-home-');
  // The browser off, so that a machine without chromium still has a healthy setup (it has a test of its own).
  writeConfig({ browser: { enabled: false } });
});
afterEach(() => {
  model.reset();
  removeTempHome(home);
});

function writeConfig(config: unknown): void {
  writeFileSync(join(home, 'operator.json'), JSON.stringify(config));
}

/** Every fake configured, with working credentials. */
function healthyEnv(): Record<string, string> {
  return {
    HOME: home,
    OPERATOR_HOME: home,
    ...fakeAnthropicEnv(model),
    TELEGRAM_BOT_TOKEN: telegram.token,
    TELEGRAM_API_ROOT: telegram.apiRoot,
    SLACK_BOT_TOKEN: slack.bot.token,
    SLACK_SIGNING_SECRET: slack.signingSecret,
    SLACK_API_URL: slack.apiUrl,
    DISCORD_BOT_TOKEN: discord.token,
    DISCORD_API_URL: discord.apiUrl,
  };
}

function doctor(args: string[], env: Record<string, string>): Promise<OperatorRun> {
  return runOperator(['doctor', ...args], env);
}

/** The report's check lines (without the summary), by the name each check has. */
function lines(run: OperatorRun): string[] {
  return run.stdout.split('\n').filter((line) => /^(OK|WARN|FAIL) /.test(line));
}

function line(run: OperatorRun, name: string): string {
  const found = lines(run).find((candidate) => candidate.replace(/^\S+\s+/, '').startsWith(`${name}:`));
  if (!found) throw new Error(`no line for ${name} in:\n${run.stdout}\n${run.stderr}`);
  return found;
}

describe('operator doctor', () => {
  it('reports a healthy setup line by line and exits 0', async () => {
    const run = await doctor([], healthyEnv());
    expect(run.stderr).toBe('');
    expect(run.code, run.stdout).toBe(0);
    const report = lines(run);
    expect(report.map((text) => text.split(':')[0]!.replace(/^\S+\s+/, ''))).toEqual(['Node.js', 'Configuration', 'OPERATOR_HOME', 'Store', 'Sandbox', 'Language servers', 'Browser', 'Model', 'Telegram', 'Telegram privacy mode', 'Slack', 'Slack scopes', 'Discord', 'Discord message content']);
    // The sandbox may warn on a machine without bubblewrap, the language servers where one is
    // found that does not run (rustup's rust-analyzer proxy without its component); everything else is fine.
    for (const text of report) expect(text, run.stdout).toMatch(/Sandbox:|Language servers:/.test(text) ? /^(OK|WARN) / : /^OK /);
    expect(line(run, 'Language servers')).toMatch(/TypeScript and JavaScript: typescript-language-server \(TypeScript [\d.]+\); Rust: /);
    expect(line(run, 'Model')).toContain('answers');
    expect(line(run, 'Telegram')).toContain(`@${telegram.bot.username}`);
    expect(line(run, 'Slack')).toContain('the bot token is accepted');
    expect(line(run, 'Discord')).toContain('the token is accepted');
    expect(run.stdout).toMatch(/\d+ checks: \d+ OK, \d+ WARN, 0 FAIL/);
    // One real request each, with one output token.
    expect(model.requests).toHaveLength(1);
    expect((model.requests[0]!.body as { max_tokens: number }).max_tokens).toBe(1);
    expect(telegram.callsOf('getMe').length).toBeGreaterThan(0);
    expect(slack.callsOf('auth.test').length).toBeGreaterThan(0);
    expect(discord.callsOf('getCurrentUser').length).toBeGreaterThan(0);
    for (const secret of [fakeAnthropicKey, telegram.token, slack.bot.token, slack.signingSecret, discord.token]) expect(run.stdout + run.stderr).not.toContain(secret);
  });

  it('makes no network request with --offline', async () => {
    const before = { telegram: telegram.calls.length, slack: slack.calls.length, discord: discord.calls.length };
    const run = await doctor(['--offline'], healthyEnv());
    expect(run.code, run.stdout).toBe(0);
    expect(model.requests).toHaveLength(0);
    expect(telegram.calls.length).toBe(before.telegram);
    expect(slack.calls.length).toBe(before.slack);
    expect(discord.calls.length).toBe(before.discord);
    for (const name of ['Model', 'Telegram', 'Slack', 'Discord']) expect(line(run, name)).toMatch(/^OK .*not contacted \(--offline\)/);
  });

  it('fails when the model server refuses the API key, without showing the key', async () => {
    model.enqueue({ error: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' } });
    const run = await doctor([], healthyEnv());
    expect(run.code).toBe(1);
    expect(line(run, 'Model')).toMatch(/^FAIL +Model: the API key is refused \(HTTP 401\): check ANTHROPIC_API_KEY$/);
    expect(run.stdout + run.stderr).not.toContain(fakeAnthropicKey);
  });

  it('checks Gemini through its OpenAI-compatible endpoint, naming its key when refused and never showing it', async () => {
    const geminiKey = 'AIzaSyFAKE-doctor-key-0123456789abcdef';
    const geminiEnv = { HOME: home, OPERATOR_HOME: home, GEMINI_API_KEY: geminiKey, GEMINI_BASE_URL: model.geminiBaseURL };
    const answering = await doctor([], geminiEnv);
    expect(line(answering, 'Model')).toMatch(/^OK +Model: gemini, model gemini-2\.5-pro answers at http:\/\/127\.0\.0\.1:\d+$/);
    expect(model.requests.at(-1)?.path).toBe('/v1beta/openai/chat/completions');
    model.enqueue({ error: { status: 400, message: 'API key not valid. Please pass a valid API key.' } });
    const refused = await doctor([], geminiEnv);
    expect(line(refused, 'Model')).toMatch(/^FAIL +Model: the API key is refused \(HTTP 400\): check GEMINI_API_KEY \(or GOOGLE_API_KEY\)$/);
    expect(refused.stdout + refused.stderr).not.toContain(geminiKey);
  });

  it('says whether the OpenAI-compatible API is on, and why a token too short keeps it off, without the token', async () => {
    const on = await doctor(['--offline'], { ...healthyEnv(), OPERATOR_API_TOKEN: 'a-long-enough-api-token-0123' });
    expect(line(on, 'API')).toMatch(/^OK +API: the OpenAI-compatible endpoint is on at \/v1/);
    expect(on.stdout).not.toContain('a-long-enough-api-token-0123');
    const short = await doctor(['--offline'], { ...healthyEnv(), OPERATOR_API_TOKEN: 'tooshort' });
    expect(line(short, 'API')).toMatch(/^WARN +API: OPERATOR_API_TOKEN is not usable \(expected at least 16 characters\), so the OpenAI-compatible endpoint stays off/);
    expect(short.stdout).not.toContain('tooshort');
  });

  it('fails when the model server cannot be reached, naming its address', async () => {
    const run = await doctor([], { ...healthyEnv(), ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' });
    expect(run.code).toBe(1);
    expect(line(run, 'Model')).toMatch(/^FAIL +Model: cannot reach http:\/\/127\.0\.0\.1:9 .*check ANTHROPIC_BASE_URL/);
  });

  it('fails when no model is configured, naming the variables to set', async () => {
    const run = await doctor(['--offline'], { HOME: home, OPERATOR_HOME: home });
    expect(run.code).toBe(1);
    const text = line(run, 'Model');
    expect(text).toMatch(/^FAIL /);
    expect(text).toContain('ANTHROPIC_API_KEY');
    expect(text).toContain('OPENAI_API_KEY');
    expect(line(run, 'Platforms')).toMatch(/^OK +Platforms: none configured/);
  });

  it('fails on an invalid operator.json, with the file and the reason', async () => {
    writeConfig({ port: 'eighty', browser: { enabled: false } });
    const run = await doctor(['--offline'], healthyEnv());
    expect(run.code).toBe(1);
    const text = line(run, 'Configuration');
    expect(text).toMatch(/^FAIL /);
    expect(text).toContain(join(home, 'operator.json'));
    expect(text).toContain('port:');
    // What needs the configuration is not checked; the rest still is.
    expect(line(run, 'Sandbox')).toMatch(/^WARN .*configuration is invalid/);
    expect(line(run, 'Model')).toMatch(/^OK /);
  });

  it('fails on operator.json that is not JSON, with its line', async () => {
    writeFileSync(join(home, 'operator.json'), '{\n  "port": 80,\n}\n');
    const run = await doctor(['--offline'], healthyEnv());
    expect(run.code).toBe(1);
    expect(line(run, 'Configuration')).toMatch(new RegExp(`^FAIL +Configuration: Invalid JSON in ${join(home, 'operator.json').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} at line 3`));
  });

  it('fails when OPERATOR_HOME is not a folder', async () => {
    const file = join(home, 'a-file');
    writeFileSync(file, '');
    const run = await doctor(['--offline'], { ...healthyEnv(), OPERATOR_HOME: file });
    expect(run.code).toBe(1);
    expect(line(run, 'OPERATOR_HOME')).toMatch(/^FAIL .*is not a folder: set OPERATOR_HOME/);
  });

  it('says a missing OPERATOR_HOME will be created, and leaves it missing', async () => {
    const run = await doctor(['--offline'], { ...healthyEnv(), OPERATOR_HOME: join(home, 'not', 'yet') });
    expect(line(run, 'OPERATOR_HOME')).toMatch(/^OK .*does not exist yet \(created at the first start\), \d+ [MG]B free$/);
    expect(existsSync(join(home, 'not'))).toBe(false);
  });

  it('fails when the browser is enabled and its chromium is missing', async () => {
    writeConfig({ browser: { enabled: true, executablePath: join(home, 'no-chromium') } });
    const run = await doctor(['--offline'], healthyEnv());
    expect(run.code).toBe(1);
    expect(line(run, 'Browser')).toMatch(/^FAIL .*no-chromium.*set browser\.enabled to false/);
  });

  it('fails when the configured Redis does not answer, without its password', async () => {
    const run = await doctor([], { ...healthyEnv(), OPERATOR_STORE: 'redis', OPERATOR_REDIS_URL: 'redis://:hunter22@127.0.0.1:9' });
    expect(run.code).toBe(1);
    expect(line(run, 'Store')).toMatch(/^FAIL +Store: Redis at redis:\/\/:\*\*\*@127\.0\.0\.1:9 does not answer/);
    expect(run.stdout + run.stderr).not.toContain('hunter22');
  });

  it('refuses an unknown option with exit code 2, naming it', async () => {
    const run = await doctor(['--fast'], healthyEnv());
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('unknown option "--fast"');
    expect(run.stdout).toBe('');
  });
});
