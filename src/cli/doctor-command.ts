/**
 * `operator doctor [--offline]`: checks what operator needs, one line each (OK, WARN or FAIL, what
 * was found and what to do), in a fixed order. The checks that reach the network run in parallel,
 * each with a timeout; `--offline` skips them. Exit code 1 when any check fails. Secrets are never
 * printed: every credential the environment holds is masked in the output as a last guard.
 */
import { checkApi } from './doctor/api.ts';
import type { LoadedConfig } from '../gateway/config/index.ts';
import { checkBrowser } from './doctor/browser.ts';
import { messageOf, type CheckResult } from './doctor/check.ts';
import { checkConfiguration } from './doctor/configuration.ts';
import { checkDiscord } from './doctor/discord.ts';
import { checkHome } from './doctor/home.ts';
import { checkMcp } from './doctor/mcp.ts';
import { checkModel } from './doctor/model.ts';
import { checkNodeVersion } from './doctor/node-version.ts';
import { checkSandbox } from './doctor/sandbox.ts';
import { checkLanguageServers } from './doctor/language-servers.ts';
import { checkSlack } from './doctor/slack.ts';
import { checkStore } from './doctor/store.ts';
import { checkTelegram } from './doctor/telegram.ts';

/** The usage text of `operator doctor`. */
export const doctorUsage = [
  'operator doctor [--offline]',
  '',
  '  Checks Node.js, the configuration, OPERATOR_HOME (writable, free space), the command sandbox,',
  '  the store (a Redis PING), the browser\'s chromium, the model credentials (a one-token request)',
  '  and each configured platform\'s token (Telegram getMe and webhook, Slack auth.test, Discord',
  '  users/@me) and what decides which messages reach the bot (Telegram privacy mode against the',
  '  groups answering without a mention, Discord\'s Message Content intent, Slack\'s granted scopes),',
  '  and each MCP server of mcp.servers: started as the gateway would, its tools listed.',
  '  Prints OK, WARN or FAIL for each; exit code 1 when any check fails.',
  '',
  '  --offline   make no network request (credentials are checked for presence only)',
].join('\n');

/** Environment variables whose values must never be printed. */
const secretVariables = [
  'ANTHROPIC_API_KEY',
  'OPENAI_API_KEY',
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
  'OPERATOR_API_TOKEN',
  'TELEGRAM_BOT_TOKEN',
  'TELEGRAM_WEBHOOK_SECRET',
  'DISCORD_BOT_TOKEN',
  'SLACK_BOT_TOKEN',
  'SLACK_SIGNING_SECRET',
  'SLACK_APP_TOKEN',
  'OPERATOR_WEB_TOKEN',
];

/** Runs `operator doctor`; resolves to the exit code. */
export async function runDoctorCommand(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const unknown = args.find((arg) => arg !== '--offline');
  if (unknown !== undefined) {
    process.stderr.write(`operator doctor: unknown option "${unknown}"\n\nUsage: ${doctorUsage}\n`);
    return 2;
  }
  const results = await runChecks(env, args.includes('--offline'));
  const mask = masker(env);
  const lines = results.map((result) => mask(formatResult(result)));
  const count = (level: CheckResult['level']) => results.filter((result) => result.level === level).length;
  lines.push('', `${results.length} checks: ${count('OK')} OK, ${count('WARN')} WARN, ${count('FAIL')} FAIL`);
  process.stdout.write(`${lines.join('\n')}\n`);
  return count('FAIL') > 0 ? 1 : 0;
}

/** One line of the report: `FAIL  Telegram: the token is refused (...): check TELEGRAM_BOT_TOKEN`. */
export function formatResult(result: CheckResult): string {
  return `${result.level.padEnd(4)}  ${result.name}: ${result.detail}${result.fix ? `: ${result.fix}` : ''}`;
}

/** Every check, in the order they are printed. */
export async function runChecks(env: NodeJS.ProcessEnv, offline: boolean): Promise<CheckResult[]> {
  const configuration = checkConfiguration(env);
  const loaded = configuration.loaded;
  const config = loaded?.config;
  const notChecked = (name: string): CheckResult => ({ level: 'WARN', name, detail: 'not checked, because the configuration is invalid', fix: 'fix the configuration first' });
  // The model named in operator.json counts like OPERATOR_MODEL, as at `operator start`.
  const modelEnv = config?.model ? { ...env, OPERATOR_MODEL: config.model } : env;
  // Started together; each has its own timeout, and the lines keep this order.
  const pending: Promise<CheckResult | CheckResult[]>[] = [
    guard('Node.js', () => checkNodeVersion()),
    Promise.resolve(configuration.result),
    guard('OPERATOR_HOME', () => checkHome(env)),
    guard('Store', () => checkStore(env, offline)),
    guard('Sandbox', async () => (config ? checkSandbox(config.sandbox, env) : notChecked('Sandbox'))),
    guard('Language servers', async () => (config ? checkLanguageServers(config.sandbox, env) : notChecked('Language servers'))),
    guard('Browser', async () => (config ? checkBrowser(config, env) : notChecked('Browser'))),
    guard('Model', () => checkModel(modelEnv, offline)),
    guard('MCP', async () => (config ? checkMcp(config, env, offline) : [])),
    ...platformChecks(env, loaded, offline),
    ...apiCheck(env),
  ];
  return (await Promise.all(pending)).flat();
}

/** The API's line, when its token is set. */
function apiCheck(env: NodeJS.ProcessEnv): Promise<CheckResult>[] {
  const result = checkApi(env);
  return result === undefined ? [] : [Promise.resolve(result)];
}

/** `check()`, or a FAIL line saying it could not run (one broken check must not hide the others). */
async function guard(name: string, check: () => Promise<CheckResult | CheckResult[]>): Promise<CheckResult | CheckResult[]> {
  try {
    return await check();
  } catch (error) {
    return { level: 'FAIL', name, detail: `the check itself failed: ${messageOf(error)}` };
  }
}

/** The checks of the platforms whose token is set (settings from the configuration, or the environment alone when it is invalid). */
function platformChecks(env: NodeJS.ProcessEnv, loaded: LoadedConfig | undefined, offline: boolean): Promise<CheckResult | CheckResult[]>[] {
  const value = (name: string) => env[name]?.trim() || undefined;
  const config = loaded?.config;
  const telegram = config?.telegram ?? { apiRoot: value('TELEGRAM_API_ROOT'), webhookUrl: value('TELEGRAM_WEBHOOK_URL') };
  const slack = config?.slack ?? { apiUrl: value('SLACK_API_URL') };
  const discord = config?.discord ?? { apiUrl: value('DISCORD_API_URL'), catchUpMinutes: 0 };
  const checks: Promise<CheckResult | CheckResult[]>[] = [];
  const telegramToken = value('TELEGRAM_BOT_TOKEN');
  // Groups that answer without a mention need privacy mode off; unknown when the configuration is invalid.
  const noMentionGroups = config ? Object.entries(config.groups).filter(([key, group]) => key.startsWith('telegram:') && !group.requireMention).map(([key]) => key) : undefined;
  if (telegramToken) checks.push(guard('Telegram', () => checkTelegram(telegramToken, telegram, offline, noMentionGroups)));
  const slackToken = value('SLACK_BOT_TOKEN');
  if (slackToken) checks.push(guard('Slack', () => checkSlack({ botToken: slackToken, signingSecret: value('SLACK_SIGNING_SECRET'), appToken: value('SLACK_APP_TOKEN') }, slack, offline)));
  const discordToken = value('DISCORD_BOT_TOKEN');
  if (discordToken) checks.push(guard('Discord', () => checkDiscord(discordToken, discord, offline)));
  if (checks.length === 0) checks.push(Promise.resolve({ level: 'OK', name: 'Platforms', detail: 'none configured besides the web chat (set TELEGRAM_BOT_TOKEN, SLACK_BOT_TOKEN or DISCORD_BOT_TOKEN to add one)' }));
  return checks;
}

/** Replaces every secret the environment holds (and a Redis password) by `[redacted]`. */
function masker(env: NodeJS.ProcessEnv): (text: string) => string {
  const secrets = secretVariables.map((name) => env[name]?.trim()).filter((secret): secret is string => secret !== undefined && secret.length >= 4);
  try {
    const password = new URL(env.OPERATOR_REDIS_URL ?? '').password;
    if (password.length >= 4) secrets.push(password, decodeURIComponent(password));
  } catch {
    // No Redis URL, or not one that parses: nothing to add.
  }
  return (text) => secrets.reduce((masked, secret) => masked.split(secret).join('[redacted]'), text);
}
