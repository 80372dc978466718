/**
 * `<OPERATOR_HOME>/gateway.json`: how the command line reaches the running gateway. The gateway
 * writes it once it is ready (its pid, its local URL and a random token, readable by its owner
 * only) and removes it when it stops. A file left by a gateway that died is recognised by its pid.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { privateFolderMode } from '../../core/private-modes.ts';

/** What the running gateway tells the command line. */
export interface ControlFile {
  pid: number;
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** Sent as `Authorization: Bearer <token>`; whoever can read the file may control the gateway. */
  token: string;
  startedAt: number;
}

/** Where the control file of `home` is. */
export function controlFilePath(home: string): string {
  return join(home, 'gateway.json');
}

/** A new random token: 256 bits, URL-safe. */
export function newControlToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Writes the control file (mode 0600) in one step: a reader sees the old file or the new one. */
export async function writeControlFile(home: string, file: ControlFile): Promise<void> {
  const path = controlFilePath(home);
  const temporary = `${path}.${process.pid}.tmp`;
  await mkdir(home, { recursive: true, mode: privateFolderMode });
  // A temp file left by a crash keeps its mode when rewritten: start from none.
  await rm(temporary, { force: true });
  await writeFile(temporary, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
  await rename(temporary, path);
}

/** The control file, or undefined when there is none (or it cannot be read as one). */
export async function readControlFile(home: string): Promise<ControlFile | undefined> {
  let text: string;
  try {
    text = await readFile(controlFilePath(home), 'utf8');
  } catch {
    return undefined;
  }
  try {
    const file = JSON.parse(text) as Partial<ControlFile>;
    if (typeof file.pid !== 'number' || typeof file.url !== 'string' || typeof file.token !== 'string') return undefined;
    return { pid: file.pid, url: file.url, token: file.token, startedAt: typeof file.startedAt === 'number' ? file.startedAt : 0 };
  } catch {
    return undefined;
  }
}

/** Removes the control file if it is still the one with `token` (another gateway may have replaced it). */
export async function removeControlFile(home: string, token: string): Promise<void> {
  const current = await readControlFile(home);
  if (current?.token === token) await rm(controlFilePath(home), { force: true });
}

/** Whether a process with `pid` exists (one of another user counts: it cannot be signalled, but it runs). */
export function isProcessRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
