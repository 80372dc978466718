/** Doctor check: the running Node.js satisfies the `engines.node` field of package.json. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { packageRoot } from '../../core/package-root.ts';
import type { CheckResult } from './check.ts';

/** `>=20.19`-style lower bounds (the only form package.json uses); undefined for other ranges. */
function lowestVersion(range: string): number[] | undefined {
  const match = /^\s*>=\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?\s*$/.exec(range);
  return match ? [Number(match[1]), Number(match[2] ?? 0), Number(match[3] ?? 0)] : undefined;
}

function atLeast(version: number[], minimum: number[]): boolean {
  for (let index = 0; index < 3; index++) {
    const [have, need] = [version[index] ?? 0, minimum[index] ?? 0];
    if (have !== need) return have > need;
  }
  return true;
}

/** Compares `running` (default this process's version, `v20.19.0`) with the `engines` of package.json. */
export async function checkNodeVersion(running: string = process.version): Promise<CheckResult> {
  const name = 'Node.js';
  const pkg = JSON.parse(await readFile(join(packageRoot, 'package.json'), 'utf8')) as { engines?: { node?: string } };
  const range = pkg.engines?.node;
  if (!range) return { level: 'OK', name, detail: `${running} (package.json names no required version)` };
  const minimum = lowestVersion(range);
  if (!minimum) return { level: 'WARN', name, detail: `${running}; cannot compare with the required "${range}"`, fix: `make sure it satisfies "${range}"` };
  const version = running.replace(/^v/, '').split('.').map(Number);
  if (atLeast(version, minimum)) return { level: 'OK', name, detail: `${running} (needs ${range})` };
  return { level: 'FAIL', name, detail: `${running} is too old (needs ${range})`, fix: `install Node.js ${minimum.join('.')} or newer` };
}
