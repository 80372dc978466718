/**
 * Environment overrides of the configuration file. Each variable is validated with the same
 * schema as its file setting; values are never quoted in problems (some are secrets).
 */
import type * as z from 'zod';
import type { ConfigProblem } from './format-issues.ts';
import { formatIssues } from './format-issues.ts';
import type { GatewayConfig } from './gateway-config.ts';
import { platforms, settingSchemas, type DmPolicy, type GroupPolicy } from './schema.ts';

/** The variables that override settings of the file. */
export type ConfigEnvironment = Partial<
  Record<
    | 'PORT'
    | 'HOST'
    | 'OPERATOR_PUBLIC_HOSTS'
    | 'OPERATOR_MODEL'
    | 'OPERATOR_DM_POLICY'
    | 'OPERATOR_GROUP_POLICY'
    | 'OPERATOR_ADMINS'
    | 'OPERATOR_REVIEW_EVERY'
    | 'TELEGRAM_API_ROOT'
    | 'TELEGRAM_WEBHOOK_URL'
    | 'TELEGRAM_WEBHOOK_SECRET'
    | 'DISCORD_API_URL'
    | 'DISCORD_CATCH_UP_MINUTES'
    | 'SLACK_API_URL',
    string
  >
>;

interface Override<T> {
  name: keyof ConfigEnvironment;
  schema: z.ZodType<T>;
  /** The text as the schema's input (a number for numbers, a list for lists). */
  read(text: string): unknown;
  apply(config: GatewayConfig, value: T): GatewayConfig;
}

const asText = (text: string) => text;
/** A whole number, or the text itself so the schema reports what kind of thing it got. */
const asInteger = (text: string) => (/^-?\d+$/.test(text) ? Number(text) : text);
const asList = (text: string) =>
  text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');

const overrides = [
  { name: 'PORT', schema: settingSchemas.port, read: asInteger, apply: (config, port) => ({ ...config, port }) } satisfies Override<number>,
  { name: 'HOST', schema: settingSchemas.host, read: asText, apply: (config, host) => ({ ...config, host }) } satisfies Override<string>,
  {
    name: 'OPERATOR_PUBLIC_HOSTS',
    schema: settingSchemas.publicHosts,
    read: asList,
    apply: (config, publicHosts) => ({ ...config, publicHosts }),
  } satisfies Override<string[]>,
  { name: 'OPERATOR_MODEL', schema: settingSchemas.model, read: asText, apply: (config, model) => ({ ...config, model }) } satisfies Override<string>,
  {
    name: 'OPERATOR_DM_POLICY',
    schema: settingSchemas.dmPolicy,
    read: asText,
    apply: (config, policy) => ({ ...config, dmPolicy: Object.fromEntries(platforms.map((platform) => [platform, policy])) as GatewayConfig['dmPolicy'] }),
  } satisfies Override<DmPolicy>,
  {
    name: 'OPERATOR_GROUP_POLICY',
    schema: settingSchemas.groupPolicy,
    read: asText,
    apply: (config, policy) => ({ ...config, groupPolicy: { telegram: policy, discord: policy, slack: policy } }),
  } satisfies Override<GroupPolicy>,
  { name: 'OPERATOR_ADMINS', schema: settingSchemas.admins, read: asList, apply: (config, admins) => ({ ...config, admins }) } satisfies Override<string[]>,
  {
    name: 'OPERATOR_REVIEW_EVERY',
    schema: settingSchemas.reviewEvery,
    read: asInteger,
    apply: (config, reviewEvery) => ({ ...config, reviewEvery }),
  } satisfies Override<number>,
  {
    name: 'TELEGRAM_API_ROOT',
    schema: settingSchemas.apiRoot,
    read: asText,
    apply: (config, apiRoot) => ({ ...config, telegram: { ...config.telegram, apiRoot } }),
  } satisfies Override<string>,
  {
    name: 'TELEGRAM_WEBHOOK_URL',
    schema: settingSchemas.webhookUrl,
    read: asText,
    apply: (config, webhookUrl) => ({ ...config, telegram: { ...config.telegram, webhookUrl } }),
  } satisfies Override<string>,
  {
    name: 'TELEGRAM_WEBHOOK_SECRET',
    schema: settingSchemas.webhookSecret,
    read: asText,
    apply: (config, webhookSecret) => ({ ...config, telegram: { ...config.telegram, webhookSecret } }),
  } satisfies Override<string>,
  {
    name: 'DISCORD_API_URL',
    schema: settingSchemas.apiRoot,
    read: asText,
    apply: (config, apiUrl) => ({ ...config, discord: { ...config.discord, apiUrl } }),
  } satisfies Override<string>,
  {
    name: 'DISCORD_CATCH_UP_MINUTES',
    schema: settingSchemas.catchUpMinutes,
    read: asInteger,
    apply: (config, catchUpMinutes) => ({ ...config, discord: { ...config.discord, catchUpMinutes } }),
  } satisfies Override<number>,
  {
    name: 'SLACK_API_URL',
    schema: settingSchemas.apiRoot,
    read: asText,
    apply: (config, apiUrl) => ({ ...config, slack: { ...config.slack, apiUrl } }),
  } satisfies Override<string>,
] as const;

/** The names of the variables that override settings. */
export const configEnvironmentVariables: readonly (keyof ConfigEnvironment)[] = overrides.map((override) => override.name);

/**
 * `config` with the environment's overrides applied (an empty or blank variable counts as unset).
 * `applied` names the variables used; `problems` the invalid ones.
 */
export function applyEnvironment(config: GatewayConfig, env: ConfigEnvironment): { config: GatewayConfig; applied: string[]; problems: ConfigProblem[] } {
  let result = config;
  const applied: string[] = [];
  const problems: ConfigProblem[] = [];
  for (const override of overrides as readonly Override<unknown>[]) {
    const text = env[override.name]?.trim();
    if (!text) continue;
    const input = override.read(text);
    const parsed = override.schema.safeParse(input);
    if (!parsed.success) {
      problems.push(...formatIssues(parsed.error.issues, input, override.name).map(environmentReason));
      continue;
    }
    result = override.apply(result, parsed.data);
    applied.push(override.name);
  }
  return { config: result, applied, problems };
}

/** Everything in the environment is text: "got a string" would only confuse. */
function environmentReason(problem: ConfigProblem): ConfigProblem {
  return { ...problem, reason: problem.reason.replace(/, got a string$/, '') };
}
