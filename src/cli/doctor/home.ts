/**
 * Doctor check: OPERATOR_HOME exists (or can be created), can be written (a probe file is written
 * and removed), and its disk has room. It never creates the folder: the gateway does at its start.
 */
import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { access, rm, stat, statfs, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { operatorHome } from '../../store/from-env.ts';
import { messageOf, type CheckResult } from './check.ts';

/** Below this much free space the check warns, and below {@link failBelowBytes} it fails. */
export const warnBelowBytes = 500 * 1024 * 1024;
export const failBelowBytes = 50 * 1024 * 1024;

const name = 'OPERATOR_HOME';

/** Checks the home folder the environment names (`OPERATOR_HOME`, default ~/.operator). */
export async function checkHome(env: NodeJS.ProcessEnv): Promise<CheckResult> {
  const home = operatorHome(env);
  const fix = `set OPERATOR_HOME to a folder this user can write, or fix the permissions of ${home}`;
  const found = await stat(home).catch(() => undefined);
  let where: string;
  let folder: string;
  if (found) {
    if (!found.isDirectory()) return { level: 'FAIL', name, detail: `${home} is not a folder`, fix };
    const probe = join(home, `.doctor-probe-${randomBytes(4).toString('hex')}`);
    try {
      await writeFile(probe, 'probe');
      await rm(probe, { force: true });
    } catch (error) {
      return { level: 'FAIL', name, detail: `${home} cannot be written (${codeOf(error)})`, fix };
    }
    where = `${home} is writable`;
    folder = home;
  } else {
    const parent = await nearestExisting(home);
    try {
      await access(parent, constants.W_OK | constants.X_OK);
    } catch (error) {
      return { level: 'FAIL', name, detail: `${home} does not exist and cannot be created in ${parent} (${codeOf(error)})`, fix };
    }
    where = `${home} does not exist yet (created at the first start)`;
    folder = parent;
  }
  const space = await statfs(folder).catch(() => undefined);
  return { ...freeSpace(space), name, detail: `${where}, ${describeSpace(space)}` };
}

function freeSpace(space: { bavail: number; bsize: number } | undefined): Pick<CheckResult, 'level' | 'fix'> {
  if (!space) return { level: 'WARN', fix: 'make sure its disk has room' };
  const free = space.bavail * space.bsize;
  if (free < failBelowBytes) return { level: 'FAIL', fix: 'free some space on its disk (sessions and files are written there)' };
  if (free < warnBelowBytes) return { level: 'WARN', fix: 'free some space on its disk soon (sessions and files are written there)' };
  return { level: 'OK' };
}

function describeSpace(space: { bavail: number; bsize: number } | undefined): string {
  if (!space) return 'free space unknown';
  const megabytes = (space.bavail * space.bsize) / (1024 * 1024);
  return megabytes >= 10_240 ? `${(megabytes / 1024).toFixed(0)} GB free` : `${megabytes.toFixed(0)} MB free`;
}

async function nearestExisting(path: string): Promise<string> {
  let current = dirname(path);
  while (!(await stat(current).catch(() => undefined)) && dirname(current) !== current) current = dirname(current);
  return current;
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? messageOf(error);
}
