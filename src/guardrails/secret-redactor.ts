/** Built-in guardrail: secrets removed from what tools return before the model sees it. */
import type { Guardrail } from '../agent/guardrail.ts';
import type { ToolResultContent } from '../llm/types.ts';
import { isSecretEnv } from '../tools/safe-env.ts';
import { encodedForms, redactEncodedForms } from './secret-encodings.ts';
import { envFileValues } from './secret-env-files.ts';
import { redactSecretPatterns, redacted } from './secret-patterns.ts';

/** Options of {@link createSecretRedactor}. */
export interface SecretRedactorOptions {
  /** Environment whose secret values are redacted; read once, at creation. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /**
   * `.env` files every value of which is redacted, whatever its name, but for plain words and
   * numbers under names that do not look secret (see `secretValues`); the files operator loads
   * its variables from. Read once, at creation; a missing one is skipped.
   */
  envFiles?: readonly string[];
}

/** Secret values shorter than this are not replaced: they would match ordinary text. */
const minimumValueLength = 8;

/**
 * After every call, replaces in the result's text parts (images are left alone) the value of
 * every secret environment variable (see `isSecretEnv`) and of every variable in `envFiles`
 * (values of at least 8 characters), as written, URL-encoded, in hex and in base64 (see
 * `secret-encodings.ts`), and every credential-shaped string (see `secret-patterns.ts`) by
 * `[REDACTED]`. When something was replaced it allows the result with the new content plus a
 * one-line note, so the model knows the gap is deliberate and does not retry to get the value.
 */
export function createSecretRedactor({ env = process.env, envFiles = [] }: SecretRedactorOptions = {}): Guardrail {
  const values = secretValues(env, envFileValues(envFiles));
  const plain = [...new Set(values.flatMap((value) => [value, encodeURIComponent(value)]))].sort((a, b) => b.length - a.length);
  const encoded = [...new Set(values.flatMap(encodedForms))].sort((a, b) => b.length - a.length);
  return {
    name: 'secret-redactor',
    afterCall(_call, result) {
      let count = 0;
      const content = result.content.map((part): ToolResultContent => {
        if (part.type !== 'text') return part;
        let text = part.text;
        for (const value of plain) {
          const pieces = text.split(value);
          count += pieces.length - 1;
          text = pieces.join(redacted);
        }
        const forms = redactEncodedForms(text, encoded, redacted);
        count += forms.count;
        const patterns = redactSecretPatterns(forms.text);
        count += patterns.count;
        return patterns.text === part.text ? part : { ...part, text: patterns.text };
      });
      if (count === 0) return;
      content.push({ type: 'text', text: `\n[${count === 1 ? 'A secret was' : `${count} secrets were`} redacted from this result as ${redacted}.]` });
      return { action: 'allow', content };
    },
  };
}

/**
 * Values to redact, longest first (so a value containing another is replaced whole): those of
 * `env`'s secret variables, and every value of `everyValueOf` (keyed `<file>:<name>`) whatever
 * its name, but for plain words and numbers under a name that does not look secret
 * (`NODE_ENV=production`, `PORT=8787`): those are in every other file, and the model would write
 * `[REDACTED]` back into the code it edits. Plain locators — a URL without credentials or query,
 * an absolute path — are kept even under a secret name (`OPENAI_BASE_URL`, `DOCKER_CONFIG`): they
 * are not secret, and redacting them would garble every file that mentions them. A password
 * inside a URL is redacted on its own too.
 */
export function secretValues(env: NodeJS.ProcessEnv, everyValueOf: Readonly<Record<string, string>> = {}): string[] {
  const values = new Set<string>();
  const secrets = Object.entries(env).filter(([name, value]) => value !== undefined && isSecretEnv(name, value));
  const fromFiles = Object.entries(everyValueOf).filter(([key, value]) => isSecretEnv(key.slice(key.lastIndexOf(':') + 1), value) || !isPlainWord(value));
  for (const [, value] of [...secrets, ...fromFiles]) {
    if (value === undefined) continue;
    const password = /^[a-z][a-z0-9+.-]*:\/\/[^/\s@:]*:([^/\s@]+)@/i.exec(value)?.[1];
    if (password !== undefined && password.length >= minimumValueLength) values.add(password);
    if (value.length >= minimumValueLength && !isPlainLocator(value)) values.add(value);
  }
  return [...values].sort((a, b) => b.length - a.length);
}

/** Words without digits (`production`, `en-US`, `Europe/Berlin`), or a number. */
function isPlainWord(value: string): boolean {
  return /^[A-Za-z]+(?:[-_.:/ ][A-Za-z]+)*$/.test(value) || /^\d+(?:\.\d+)?$/.test(value);
}

function isPlainLocator(value: string): boolean {
  if (/^[a-z][a-z0-9+.-]*:\/\/[^\s@?#]*$/i.test(value)) return true;
  return /^\/[^\s]*$/.test(value);
}
