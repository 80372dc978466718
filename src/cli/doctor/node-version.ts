/**
 * Doctor check: the running Node.js against the `engines.node` field of package.json (the versions
 * the suite runs on) and against its release line's end of life.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { packageRoot } from '../../core/package-root.ts';
import type { CheckResult } from './check.ts';
import { endOfLifeOf, newestLtsLine } from './node-release-lines.ts';

type Version = [number, number, number];

/** One alternative of the range: versions from `lowest` up to, not including, `below` (open when undefined). */
interface Interval {
  lowest: Version;
  below?: Version;
}

/**
 * `>=20.19`, `^20.19.0` and alternatives of them joined by `||` (the forms package.json uses);
 * undefined for any other range.
 */
export function parseEnginesRange(range: string): Interval[] | undefined {
  const intervals: Interval[] = [];
  for (const part of range.split('||')) {
    const match = /^\s*(>=|\^)\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?\s*$/.exec(part);
    if (!match) return undefined;
    const lowest: Version = [Number(match[2]), Number(match[3] ?? 0), Number(match[4] ?? 0)];
    // A caret keeps the major (for majors above 0, the only ones Node.js has).
    intervals.push(match[1] === '^' ? { lowest, below: [lowest[0] + 1, 0, 0] } : { lowest });
  }
  return intervals;
}

function compare(left: Version, right: Version): number {
  for (let index = 0; index < 3; index++) if (left[index] !== right[index]) return left[index]! - right[index]!;
  return 0;
}

function parseVersion(running: string): Version {
  const [major = 0, minor = 0, patch = 0] = running.replace(/^v/, '').split('.').map((part) => Number.parseInt(part, 10) || 0);
  return [major, minor, patch];
}

/**
 * Judges `running` (`v24.21.0`) against `range` (package.json's `engines.node`) on `today`
 * (`YYYY-MM-DD`): FAIL below the range, WARN for a version the range leaves out (not tested) or
 * one whose release line is past its end of life, OK otherwise.
 */
export function judgeNodeVersion(running: string, range: string | undefined, today: string): CheckResult {
  const name = 'Node.js';
  const version = parseVersion(running);
  const endOfLife = endOfLifeOf(version[0]);
  const upgrade = `install Node.js ${newestLtsLine.major} (supported until ${newestLtsLine.endOfLife})`;
  if (endOfLife !== undefined && endOfLife <= today) {
    // Past its end of life counts even when it is in the range: no more security fixes.
    return { level: 'WARN', name, detail: `${running} is past its end of life (${endOfLife}): Node.js ${version[0]} gets no more security fixes`, fix: upgrade };
  }
  const supported = endOfLife === undefined ? '' : `, supported until ${endOfLife}`;
  if (!range) return { level: 'OK', name, detail: `${running} (package.json names no tested version${supported})` };
  const intervals = parseEnginesRange(range);
  if (!intervals) return { level: 'WARN', name, detail: `${running}; cannot compare with the tested "${range}"`, fix: `make sure it satisfies "${range}"` };
  if (intervals.some(({ lowest, below }) => compare(version, lowest) >= 0 && (!below || compare(version, below) < 0))) {
    return { level: 'OK', name, detail: `${running} (tested: ${range}${supported})` };
  }
  const lowest = intervals.map((interval) => interval.lowest).sort(compare)[0]!;
  if (compare(version, lowest) < 0) return { level: 'FAIL', name, detail: `${running} is too old (tested: ${range})`, fix: upgrade };
  // A tested line, but older than its tested releases (24.10 against ^24.11.0): a newer release of it will do.
  const sameLine = intervals.find((interval) => interval.lowest[0] === version[0]);
  const fix = sameLine ? `update Node.js ${version[0]} to ${sameLine.lowest.join('.')} or newer` : upgrade;
  return { level: 'WARN', name, detail: `${running} is not a version operator is tested on (${range})`, fix };
}

/** Checks `running` (default this process's version) with the `engines` of package.json, as of `now`. */
export async function checkNodeVersion(running: string = process.version, now: Date = new Date()): Promise<CheckResult> {
  const pkg = JSON.parse(await readFile(join(packageRoot, 'package.json'), 'utf8')) as { engines?: { node?: string } };
  return judgeNodeVersion(running, pkg.engines?.node, now.toISOString().slice(0, 10));
}
