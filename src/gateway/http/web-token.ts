/**
 * The web chat's login token: `OPERATOR_WEB_TOKEN` when set, else the file
 * `OPERATOR_HOME/web-token`, made at the first start that needs it (256 random bits, mode 0600).
 * The token itself is never printed: errors and the banner name only where it is.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { writeFileAtomic } from '../../core/atomic-write.ts';
import { ConfigurationError } from '../../core/errors.ts';

/** The variable that gives the token. */
export const webTokenVariable = 'OPERATOR_WEB_TOKEN';

/** Short tokens could be guessed despite the rate limit; a made one has 43 characters. */
const tokenSchema = z
  .string()
  .min(16, 'expected at least 16 characters')
  .max(512, 'expected at most 512 characters')
  .regex(/^[\x21-\x7e]+$/, 'expected printable ASCII without spaces');

/** Where the token came from. */
export type WebTokenSource = { kind: 'environment' } | { kind: 'file'; path: string; created: boolean };

/** The token and where it came from. */
export interface WebToken {
  token: string;
  source: WebTokenSource;
}

/** The token file of an `OPERATOR_HOME`. */
export function webTokenPath(home: string): string {
  return join(home, 'web-token');
}

/**
 * Loads the token, making the file when neither the variable nor the file gives one.
 *
 * @throws ConfigurationError when the variable or the file holds no valid token (the reason, never the value).
 */
export async function loadWebToken(env: NodeJS.ProcessEnv, home: string): Promise<WebToken> {
  const fromEnv = env[webTokenVariable]?.trim();
  if (fromEnv) return { token: validWebToken(fromEnv, webTokenVariable), source: { kind: 'environment' } };
  const path = webTokenPath(home);
  const existing = await readToken(path);
  if (existing !== undefined) return { token: validWebToken(existing, path), source: { kind: 'file', path, created: false } };
  const token = randomBytes(32).toString('base64url');
  await writeFileAtomic(path, `${token}\n`, { mode: 0o600 });
  return { token, source: { kind: 'file', path, created: true } };
}

async function readToken(path: string): Promise<string | undefined> {
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ConfigurationError(`Cannot read the web login token ${path}: ${(error as NodeJS.ErrnoException).code ?? 'unknown error'}`, { file: path });
  }
}

/**
 * `token` when it is long and plain enough to stand as the login token; `where` names where it
 * came from in the error (a variable or a file).
 *
 * @throws ConfigurationError saying why it is not valid and what to do (never the value).
 */
export function validWebToken(token: string, where: string): string {
  const parsed = tokenSchema.safeParse(token);
  if (parsed.success) return parsed.data;
  const reason = parsed.error.issues.map((issue) => issue.message).join('; ');
  const fix = where === webTokenVariable ? `set ${webTokenVariable} to a longer value` : 'delete the file to have a new token made at the next start';
  throw new ConfigurationError(`The web login token in ${where} is not valid (${reason}): ${fix}`);
}
