/**
 * `operator config check` validates the configuration (file and environment) without starting
 * anything and prints a summary; `operator config schema` prints the JSON Schema of
 * `operator.json`. Secrets are never printed: only whether they are set.
 */
import { dollars } from '../gateway/budget/budget-gate.ts';
import { defaultBudgets } from '../gateway/config/budget-schema.ts';
import { existsSync } from 'node:fs';
import { ConfigurationError } from '../core/errors.ts';
import { loadConfig, platforms, renderConfigJsonSchema, type GatewayConfig, type LoadedConfig } from '../gateway/config/index.ts';
import { hostAndPort, listenScope, resolveExposure, webhookSources, webTokenPath, webTokenVariable, type Exposure } from '../gateway/http/index.ts';
import { operatorHome } from '../store/from-env.ts';
import { detectSlirp4netns } from '../tools/sandbox/detect-slirp4netns.ts';
import { parseCommandArgs, UsageError } from './cli-options.ts';

/** The usage text of `operator config`. */
export const configUsage = [
  'operator config check | schema',
  '',
  '  check    validate OPERATOR_HOME/operator.json (or OPERATOR_CONFIG) and the environment; exit 1 when invalid',
  '  schema   print the JSON Schema of operator.json',
].join('\n');

/** Runs `operator config <subcommand>`; resolves to the exit code (throws a UsageError for bad arguments). */
export async function runConfigCommand(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const [subcommand, ...rest] = parseCommandArgs(args, {}).positionals;
  if (subcommand !== 'check' && subcommand !== 'schema') throw new UsageError(subcommand === undefined ? 'operator config needs a subcommand' : `unknown subcommand "${subcommand}"`);
  if (rest.length > 0) throw new UsageError(`${subcommand} takes no arguments`);
  if (subcommand === 'schema') {
    process.stdout.write(renderConfigJsonSchema());
    return 0;
  }
  try {
    process.stdout.write(`${configSummary(loadConfig(env), env).join('\n')}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    process.stderr.write(`${error.message}\n`);
    return 1;
  }
}

/** The lines `operator config check` prints for a valid configuration. */
export function configSummary(loaded: LoadedConfig, env: NodeJS.ProcessEnv = {}): string[] {
  const { config } = loaded;
  const set = (name: string) => (env[name]?.trim() ? 'set' : 'not set');
  const allowlists = platforms
    .filter((platform) => config.allowlists[platform].chats.length + config.allowlists[platform].users.length > 0)
    .map((platform) => `${platform} (${config.allowlists[platform].chats.length} chats, ${config.allowlists[platform].users.length} users)`);
  const groups = Object.entries(config.groups).map(([key, group]) => `${key}${group.requireMention ? '' : ' (answers without mention)'}`);
  const webhook = config.telegram.webhookUrl ? `webhook ${config.telegram.webhookUrl} (secret set)` : 'long polling';
  const exposure = resolveExposure(config, { webhooks: webhookSources(env, config), ownCommandNetwork: detectSlirp4netns({ searchPath: env.PATH }).found });
  return [
    `Configuration is valid: ${loaded.file}${loaded.fileFound ? '' : ' (no file: defaults)'}`,
    ...(loaded.environment.length > 0 ? [`  from the environment: ${loaded.environment.join(', ')}`] : []),
    `  port: ${config.port}`,
    `  listening on: ${hostAndPort(config.host, config.port)} (${listenScope(config.host)})`,
    `  public hosts: ${config.publicHosts.length > 0 ? config.publicHosts.join(', ') : 'none'}`,
    `  exposed: ${exposure.exposed ? `yes, ${exposure.exposedBecause.join('; ')}` : 'no (reachable from this machine only)'}`,
    `  web login: ${webLogin(exposure, env)}`,
    `  model: ${config.model ?? '(chosen from the credentials)'}`,
    `  direct messages: ${platforms.map((platform) => `${platform} ${platform === 'web' ? webPolicy(config, exposure) : config.dmPolicy[platform]}`).join(', ')}`,
    `  groups served: ${groupPolicyLine(config)}`,
    `  admins: ${config.admins.length > 0 ? config.admins.join(', ') : 'none'}`,
    `  allowlists: ${allowlists.length > 0 ? allowlists.join(', ') : 'none'}`,
    `  groups: ${groups.length > 0 ? groups.join(', ') : 'defaults (answer when mentioned)'}`,
    `  busy mode: ${config.busyMode}`,
    `  edited messages: ${config.editedMessages === 'reanswer' ? 'reanswer (the new wording, if its turn has not begun)' : 'ignore'}`,
    `  idle conversations leave memory after ${config.idleTtlSeconds} s`,
    `  profile bindings: ${Object.keys(config.profiles.channels).length} channels, ${Object.keys(config.profiles.people).length} people`,
    `  memory review every: ${config.reviewEvery === undefined ? 'default' : `${config.reviewEvery} turns`}`,
    `  spending caps: ${budgetLine(config)}`,
    `  telegram: token ${set('TELEGRAM_BOT_TOKEN')}, ${webhook}${config.telegram.apiRoot ? `, API ${config.telegram.apiRoot}` : ''}`,
    `  discord: token ${set('DISCORD_BOT_TOKEN')}${config.discord.apiUrl ? `, API ${config.discord.apiUrl}` : ''}`,
    `  slack: bot token ${set('SLACK_BOT_TOKEN')}, signing secret ${set('SLACK_SIGNING_SECRET')}, app token ${set('SLACK_APP_TOKEN')}${config.slack.apiUrl ? `, API ${config.slack.apiUrl}` : ''}`,
  ];
}

/** The spending caps in force (`docs/budgets.md`), the defaults said as such. */
function budgetLine(config: GatewayConfig): string {
  const { gateway, conversation, person, job, pipelineRun, botTurns } = config.budgets;
  const jobCaps = [job.run === undefined ? '' : `${dollars(job.run)} a run`, job.day === undefined ? '' : `${dollars(job.day)} a day`].filter((part) => part !== '');
  const parts = [
    `gateway ${gateway.day === undefined ? 'none' : `${dollars(gateway.day)} a day`}${gateway.month === undefined ? '' : `, ${dollars(gateway.month)} a month`}`,
    `conversation ${conversation.day === undefined ? `${dollars(defaultBudgets.groupDay)} a day for groups (default)` : `${dollars(conversation.day)} a day`}`,
    `person ${dollars(person.day ?? defaultBudgets.personDay)} a day${person.day === undefined ? ' (default)' : ''}, admins none`,
    `job ${jobCaps.length > 0 ? jobCaps.join(', ') : 'none'}`,
    `pipeline run ${pipelineRun.run === undefined ? 'none' : dollars(pipelineRun.run)}`,
    `bots' messages in a row ${botTurns}`,
  ];
  return parts.join('; ');
}

/** The group policy of each platform, said in words (`telegram approval (...)`). */
function groupPolicyLine(config: GatewayConfig): string {
  const words = {
    approval: "approval (groups an admin added the bot to or approved; elsewhere a mention gets a pairing code)",
    allowlist: 'allowlist (groups an admin added the bot to, approved or listed in allowlists; no codes)',
    open: 'open (every group)',
  } as const;
  const policies = [config.groupPolicy.telegram, config.groupPolicy.discord, config.groupPolicy.slack];
  if (policies.every((policy) => policy === policies[0])) return `${words[policies[0]!]}, on every platform`;
  return (['telegram', 'discord', 'slack'] as const).map((platform) => `${platform} ${words[config.groupPolicy[platform]]}`).join('; ');
}

/** The web chat's policy: as configured, else what it follows and what it is now. */
function webPolicy(config: GatewayConfig, exposure: Exposure): string {
  if (config.dmPolicy.web !== undefined) return config.dmPolicy.web;
  return `open while local, pairing when exposed (now ${exposure.webDmPolicy})`;
}

/** Whether the web chat asks for a login, why, and where its token is (never the token). */
function webLogin(exposure: Exposure, env: NodeJS.ProcessEnv): string {
  if (!exposure.loginRequired) return 'not required (the web chat is the owner\'s, on this machine)';
  const path = webTokenPath(operatorHome(env));
  const token = env[webTokenVariable]?.trim() ? `token from ${webTokenVariable}` : existsSync(path) ? `token in ${path}` : `token made at the first start in ${path}`;
  return `required because ${exposure.loginBecause.join('; ')}; ${token}`;
}
