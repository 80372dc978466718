/** Built-in guardrail: secrets removed from what tools return before the model sees it. */
import type { Guardrail } from '../agent/guardrail.ts';
import type { ToolResultContent } from '../llm/types.ts';
import { isSecretEnv } from '../tools/safe-env.ts';
import { redactSecretPatterns, redacted } from './secret-patterns.ts';

/** Options of {@link createSecretRedactor}. */
export interface SecretRedactorOptions {
  /** Environment whose secret values are redacted; read once, at creation. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

/** Secret values shorter than this are not replaced: they would match ordinary text. */
const minimumValueLength = 8;

/**
 * After every call, replaces in the result's text parts (images are left alone) the value of
 * every secret environment variable (see `isSecretEnv`; values of at least 8 characters) and
 * every credential-shaped string (see `secret-patterns.ts`) by `[REDACTED]`. When something was
 * replaced it allows the result with the new content plus a one-line note, so the model knows
 * the gap is deliberate and does not retry to get the value.
 */
export function createSecretRedactor({ env = process.env }: SecretRedactorOptions = {}): Guardrail {
  const values = secretValues(env);
  return {
    name: 'secret-redactor',
    afterCall(_call, result) {
      let count = 0;
      const content = result.content.map((part): ToolResultContent => {
        if (part.type !== 'text') return part;
        let text = part.text;
        for (const value of values) {
          const pieces = text.split(value);
          count += pieces.length - 1;
          text = pieces.join(redacted);
        }
        const patterns = redactSecretPatterns(text);
        count += patterns.count;
        return patterns.count === 0 && text === part.text ? part : { ...part, text: patterns.text };
      });
      if (count === 0) return;
      content.push({ type: 'text', text: `\n[${count === 1 ? 'A secret was' : `${count} secrets were`} redacted from this result as ${redacted}.]` });
      return { action: 'allow', content };
    },
  };
}

/**
 * Values to redact, longest first (so a value containing another is replaced whole). Plain
 * locators — a URL without credentials or query, an absolute path — are kept even under a secret
 * name (`OPENAI_BASE_URL`, `DOCKER_CONFIG`): they are not secret, and redacting them would
 * garble every file that mentions them. A password inside a URL is redacted on its own too.
 */
export function secretValues(env: NodeJS.ProcessEnv): string[] {
  const values = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || !isSecretEnv(name, value)) continue;
    const password = /^[a-z][a-z0-9+.-]*:\/\/[^/\s@:]*:([^/\s@]+)@/i.exec(value)?.[1];
    if (password !== undefined && password.length >= minimumValueLength) values.add(password);
    if (value.length >= minimumValueLength && !isPlainLocator(value)) values.add(value);
  }
  return [...values].sort((a, b) => b.length - a.length);
}

function isPlainLocator(value: string): boolean {
  if (/^[a-z][a-z0-9+.-]*:\/\/[^\s@?#]*$/i.test(value)) return true;
  return /^\/[^\s]*$/.test(value);
}
