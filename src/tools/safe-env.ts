/**
 * The environment handed to commands the agent starts. The model can run `env` (or read
 * `/proc/<pid>/environ`, in any encoding), so commands get only the variables on an allowlist:
 * what shells, locales and terminals need, and names the owner adds. A secret-looking name
 * (see {@link isSecretEnv}) stays withheld even when added.
 */

/** Passed to every command: the search path, the locale and the terminal's abilities. */
const allowedNames: ReadonlySet<string> = new Set(['PATH', 'LANG', 'LANGUAGE', 'TERM', 'TZ', 'COLORTERM', 'NO_COLOR']);

/** Debian's default search path, for a gateway started without one. */
const defaultPath = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

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
  'OPERATOR_API_TOKEN',
  'GOOGLE_API_KEY',
]);

/** Whole families removed: their tools read credentials from them. */
const secretPrefixes = ['DOCKER_', 'ANTHROPIC_', 'OPENAI_', 'GEMINI_'];

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
 * The variables of `env` a command may see: {@link allowedNames}, `LC_*` and `extraNames`, without
 * secrets ({@link isSecretEnv}) and unset entries; PATH is a sane default when unset. HOME and
 * TMPDIR are the sandbox's to set.
 *
 * @example
 * spawn('/bin/sh', ['-c', command], { env: { ...safeEnv(process.env, settings.env), HOME: '/tmp' } });
 */
export function safeEnv(env: NodeJS.ProcessEnv = process.env, extraNames: readonly string[] = []): Record<string, string> {
  const extra = new Set(extraNames);
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || !(allowedNames.has(name) || name.startsWith('LC_') || extra.has(name))) continue;
    if (!isSecretEnv(name, value)) result[name] = value;
  }
  if (!result.PATH) result.PATH = defaultPath;
  return result;
}
