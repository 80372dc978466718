/**
 * Whether a file about to be uploaded carries a secret. A bundle ends up in KV, readable by
 * anyone with access to the Cloudflare account and shown to the model in every conversation, so a
 * file holding a secret is refused whole rather than uploaded redacted: the person fixes the file.
 * The test is the one the secret-redactor guardrail uses on tool results: the values of this
 * process's secret environment variables (`secretValues`, after `.env` files are read) and the
 * credential shapes of `secret-patterns.ts`.
 */
import { secretPatterns } from '../../guardrails/secret-patterns.ts';
import { secretValues } from '../../guardrails/secret-redactor.ts';

/** A secret found in a text: what it is (never the value itself) and where. */
export interface SecretFinding {
  /** E.g. `the value of ANTHROPIC_API_KEY`, or `a credential (GitHub token)`. */
  what: string;
  /** 1-based line of the first secret in the text. */
  line: number;
}

/** The secret values of `env`, each with the variable it is the value of. */
export type SecretValues = readonly { name: string; value: string }[];

/** The secret values of `env` to look for (computed once per deploy, not once per file). */
export function secretValuesOf(env: NodeJS.ProcessEnv): SecretValues {
  return Object.keys(env)
    .sort()
    .flatMap((name) => secretValues({ [name]: env[name] }).map((value) => ({ name, value })));
}

/** The first secret in `text` (by position), or undefined when it has none. */
export function findSecret(text: string, secrets: SecretValues): SecretFinding | undefined {
  let first: { index: number; what: string } | undefined;
  const consider = (index: number, what: string): void => {
    if (index >= 0 && (first === undefined || index < first.index)) first = { index, what };
  };
  for (const { name, value } of secrets) consider(text.indexOf(value), `the value of ${name}`);
  // `search` ignores the global flag and `lastIndex`, so the shared patterns are safe to reuse.
  for (const { name, pattern } of secretPatterns) consider(text.search(pattern), `a credential (${name})`);
  if (!first) return undefined;
  return { what: first.what, line: lineAt(text, first.index) };
}

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let at = text.indexOf('\n'); at !== -1 && at < index; at = text.indexOf('\n', at + 1)) line++;
  return line;
}
