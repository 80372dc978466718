/**
 * `${NAME}` in an MCP server's `headers` and `env` values: replaced by the gateway's variable of
 * that name when the server is started, so a token stays in the environment (or a `.env` file),
 * never in operator.json. What was put in is kept as a secret of that server: scrubbed from what
 * its calls return, from its errors and from every line operator writes about it.
 */

/** What {@link resolvePlaceholders} made of a set of values. */
export interface ResolvedValues {
  values: Record<string, string>;
  /** Variables named but not set (the server is not started: its entry says which). */
  missing: string[];
  /** What to scrub: each value put in, and each whole value that had one. */
  secrets: string[];
}

const placeholder = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** Secret text shorter than this is left in place: it would match ordinary words. */
const shortest = 6;

/** A header that carries a credential whatever it holds: `Authorization`, `X-Api-Key`, `Cookie`, ... */
export function isCredentialHeader(name: string): boolean {
  return /auth|token|key|secret|cookie|session|password|credential/i.test(name);
}

/**
 * `entries` with every `${NAME}` replaced from `env`. A whole value with a variable counts as a
 * secret, and so does one whose key `secretKey` says is a credential (a header's name), written in
 * the file or not.
 *
 * @example
 * resolvePlaceholders({ Authorization: 'Bearer ${API_TOKEN}' }, { API_TOKEN: 'abc123def' }, isCredentialHeader);
 * // { values: { Authorization: 'Bearer abc123def' }, missing: [], secrets: ['abc123def', 'Bearer abc123def'] }
 */
export function resolvePlaceholders(entries: Readonly<Record<string, string>>, env: NodeJS.ProcessEnv, secretKey: (key: string) => boolean = () => false): ResolvedValues {
  const values: Record<string, string> = {};
  const missing = new Set<string>();
  const secrets = new Set<string>();
  for (const [key, raw] of Object.entries(entries)) {
    let named = false;
    const value = raw.replace(placeholder, (_whole, name: string) => {
      named = true;
      const found = env[name];
      if (found === undefined) {
        missing.add(name);
        return '';
      }
      secrets.add(found);
      return found;
    });
    values[key] = value;
    if (named || secretKey(key)) secrets.add(value);
  }
  return { values, missing: [...missing], secrets: [...secrets].filter((secret) => secret.length >= shortest) };
}

/** A function that replaces every one of `secrets` (longest first) in a text by `[REDACTED]`. */
export function scrubberOf(secrets: readonly string[]): (text: string) => string {
  const sorted = [...new Set(secrets)].filter((secret) => secret.length >= shortest).sort((a, b) => b.length - a.length);
  if (sorted.length === 0) return (text) => text;
  return (text) => sorted.reduce((scrubbed, secret) => scrubbed.split(secret).join('[REDACTED]'), text);
}
