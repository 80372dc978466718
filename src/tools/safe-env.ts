/**
 * The environment handed to child processes the agent starts. The model can run `env`, so
 * anything secret in operator's own environment (platform tokens, model keys, store URLs) must
 * not reach them.
 */

/** Secrets operator itself reads, and well-known ones the patterns below might miss. */
const secretNames: ReadonlySet<string> = new Set([
  'DATABASE_URL',
  'GITHUB_TOKEN',
  'GH_TOKEN',
  'NPM_TOKEN',
  'TELEGRAM_BOT_TOKEN',
  'TELEGRAM_WEBHOOK_SECRET',
  'DISCORD_BOT_TOKEN',
  'SLACK_BOT_TOKEN',
  'SLACK_SIGNING_SECRET',
  'SLACK_APP_TOKEN',
  'OPERATOR_REDIS_URL',
]);

/** Whole families removed: their tools read credentials from them. */
const secretPrefixes = ['DOCKER_', 'ANTHROPIC_', 'OPENAI_'];

/**
 * A name with one of these `_`-separated words is secret (`*_TOKEN`, `MY_API_KEY`,
 * `DB_PASSWORD_FILE`), and so is one with a word ending in a {@link secretSuffixes} entry
 * (`npm_config__authToken`).
 */
const secretWords: ReadonlySet<string> = new Set([
  'SECRET',
  'SECRETS',
  'TOKEN',
  'TOKENS',
  'PASSWORD',
  'PASSWD',
  'CREDENTIAL',
  'CREDENTIALS',
  'KEY',
  'KEYS',
  'APIKEY',
  'PRIVATEKEY',
  'SECRETKEY',
  'ACCESSKEY',
]);

const secretSuffixes = ['TOKEN', 'SECRET', 'PASSWORD', 'APIKEY'];

/** A URL carrying a password, like `redis://:hunter2@host` or `postgres://user:pw@db/app`. */
const urlWithPassword = /^[a-z][a-z0-9+.-]*:\/\/[^/\s@:]*:[^/\s@]+@/i;

/** Whether an environment variable must be kept from child processes. */
export function isSecretEnv(name: string, value = ''): boolean {
  const upper = name.toUpperCase();
  if (secretNames.has(upper)) return true;
  if (secretPrefixes.some((prefix) => upper.startsWith(prefix))) return true;
  if (upper.endsWith('_DATABASE_URL')) return true;
  if (upper.startsWith('AWS_') && upper.includes('KEY')) return true;
  const words = upper.split('_');
  if (words.some((word) => secretWords.has(word) || secretSuffixes.some((suffix) => word.endsWith(suffix)))) return true;
  return urlWithPassword.test(value);
}

/**
 * A copy of `env` without secrets (see {@link isSecretEnv}) and without unset entries.
 *
 * @example
 * spawn('/bin/sh', ['-c', command], { env: safeEnv() });
 */
export function safeEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && !isSecretEnv(name, value)) result[name] = value;
  }
  return result;
}
