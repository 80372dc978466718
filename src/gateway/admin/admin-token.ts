/**
 * The admin token: whoever holds it is an admin of the console (and may read `/metrics`). It is
 * `OPERATOR_ADMIN_TOKEN` when set, else the file `OPERATOR_HOME/admin-token`, made the first time
 * it is needed (256 random bits, mode 0600). The token is never printed by the gateway: errors and
 * the banner name only where it is; `operator admin url` prints a login link to the person at the
 * terminal, who could read the file anyway.
 */
import { randomBytes } from 'node:crypto';
import { link, mkdir, open, readFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { ConfigurationError } from '../../core/errors.ts';
import { sameSecret } from '../../core/same-secret.ts';
import { privateFolderMode } from '../../core/private-modes.ts';

/** The variable that gives the token. */
export const adminTokenVariable = 'OPERATOR_ADMIN_TOKEN';

/** Where the token came from. */
export type AdminTokenSource = { kind: 'environment' } | { kind: 'file'; path: string; created: boolean };

/** The token and where it came from. */
export interface AdminToken {
  token: string;
  source: AdminTokenSource;
}

/** The token file of an `OPERATOR_HOME`. */
export function adminTokenPath(home: string): string {
  return join(home, 'admin-token');
}

/**
 * Loads the admin token, making the file when neither the variable nor the file gives one. Two
 * processes making it at once (the gateway and `operator admin url`) end up with the same token:
 * the file is created only where none exists.
 *
 * @throws ConfigurationError when the variable or the file holds no valid token (the reason, never the value).
 * @example
 * const { token } = await loadAdminToken(process.env, operatorHome(process.env));
 * if (!adminTokenMatches(bearerOf(request), token)) return new Response(null, { status: 401 });
 */
export async function loadAdminToken(env: NodeJS.ProcessEnv, home: string): Promise<AdminToken> {
  const fromEnv = env[adminTokenVariable]?.trim();
  if (fromEnv) return { token: valid(fromEnv, adminTokenVariable), source: { kind: 'environment' } };
  const path = adminTokenPath(home);
  const existing = await readToken(path);
  if (existing !== undefined) return { token: valid(existing, path), source: { kind: 'file', path, created: false } };
  const made = randomBytes(32).toString('base64url');
  if (await createExclusive(path, `${made}\n`)) return { token: made, source: { kind: 'file', path, created: true } };
  // Another process made it first: its token is the one.
  const theirs = await readToken(path);
  if (theirs === undefined) throw new ConfigurationError(`Cannot make the admin token ${path}`, { file: path });
  return { token: valid(theirs, path), source: { kind: 'file', path, created: false } };
}

/** Whether `given` is `token`, compared in constant time (a wrong guess takes as long whatever it shares). */
export function adminTokenMatches(given: string | undefined, token: string): boolean {
  if (given === undefined || given === '') return false;
  return sameSecret(given, token);
}

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearerOf(request: Request): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get('authorization') ?? '')?.[1];
}

/** Writes `text` to a new file at `path` (mode 0600 from the start); false when a file is already there. */
async function createExclusive(path: string, text: string): Promise<boolean> {
  await mkdir(dirname(path), { recursive: true, mode: privateFolderMode });
  const temp = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    // A hard link fails where a file exists (a rename would replace it): whole, and never twice.
    await link(temp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await rm(temp, { force: true });
  }
}

async function readToken(path: string): Promise<string | undefined> {
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ConfigurationError(`Cannot read the admin token ${path}: ${(error as NodeJS.ErrnoException).code ?? 'unknown error'}`, { file: path });
  }
}

/** Short tokens could be guessed despite the rate limit; a made one has 43 characters. */
function valid(token: string, where: string): string {
  const problem =
    token.length < 16 ? 'expected at least 16 characters' : token.length > 512 ? 'expected at most 512 characters' : /^[\x21-\x7e]+$/.test(token) ? undefined : 'expected printable ASCII without spaces';
  if (problem === undefined) return token;
  const fix = where === adminTokenVariable ? `set ${adminTokenVariable} to a longer value` : 'delete the file to have a new token made at the next start';
  throw new ConfigurationError(`The admin token in ${where} is not valid (${problem}): ${fix}`);
}
