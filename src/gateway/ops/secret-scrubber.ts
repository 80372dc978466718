/**
 * Takes secrets out of text bound for the log. The gateway's reports never put a secret in on
 * purpose; this is the second line: an error message from a library that echoes a URL with a
 * bot token in it, a header dumped by a failing request. Each secret of the environment (by the
 * same test the tools' environment uses) is looked for as is and in the encodings it travels in:
 * URL-encoded, hex, and base64 (standard and URL-safe, also inside a longer encoded string such
 * as a `Basic` credential).
 */
import { isSecretEnv } from '../../tools/safe-env.ts';

/** What a secret is replaced with. */
export const redacted = '[redacted]';

/** Secrets shorter than this are not looked for: they would match ordinary words. */
const shortest = 8;

/** A function returning `text` without the secrets it was made with. */
export type Scrubber = (text: string) => string;

/**
 * A scrubber for the secret values of `env` plus `extra` (tokens the gateway made itself, such as
 * the admin token). Every form of each secret is replaced; longer forms first, so a form that
 * contains another is replaced whole.
 */
export function createScrubber(env: NodeJS.ProcessEnv, extra: readonly string[] = []): Scrubber {
  const values = new Set<string>(extra.filter((value) => value.length >= shortest));
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && value.length >= shortest && isSecretEnv(name, value)) values.add(value);
  }
  const forms = new Set<string>();
  for (const value of values) for (const form of encodings(value)) if (form.length >= shortest) forms.add(form);
  if (forms.size === 0) return (text) => text;
  const sorted = [...forms].sort((a, b) => b.length - a.length);
  const pattern = new RegExp(sorted.map(escapeRegExp).join('|'), 'g');
  return (text) => text.replace(pattern, redacted);
}

/**
 * The forms a secret is seen in. Base64 of a value starting at any of the three byte offsets
 * covers the secret inside a longer encoded string (an `Authorization: Basic` header), minus the
 * characters at its edges that depend on its neighbours.
 */
function encodings(value: string): string[] {
  const forms = [value, encodeURIComponent(value), Buffer.from(value).toString('hex')];
  for (let offset = 0; offset < 3; offset++) {
    const padded = Buffer.concat([Buffer.alloc(offset), Buffer.from(value)]);
    const base64 = padded.toString('base64');
    // Only characters made wholly of the secret's bits: those at the edges carry the neighbours'.
    const start = Math.ceil((offset * 4) / 3);
    const end = Math.floor((padded.length * 4) / 3);
    const core = base64.slice(start, end);
    forms.push(core, core.replaceAll('+', '-').replaceAll('/', '_'));
  }
  return forms;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
