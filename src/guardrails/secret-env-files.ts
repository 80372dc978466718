/**
 * The values of the `.env` files operator loads. Every one of them is treated as a secret,
 * whatever its name: a file of keys is where people put what they would not show, and a value
 * under a plain name (`DEPLOY_NOTE=...`) is as private as one under `*_TOKEN`.
 */
import { readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';

/**
 * The values set in `files` (`.env` syntax, as Node reads it), as an environment keyed by
 * `<file>:<name>` so values of the same name in two files both count. A file that is missing or
 * cannot be read adds nothing: it loaded nothing either.
 */
export function envFileValues(files: readonly string[]): Record<string, string> {
  const values: Record<string, string> = {};
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const [name, value] of Object.entries(parseEnv(text))) if (value !== undefined) values[`${file}:${name}`] = value;
  }
  return values;
}
