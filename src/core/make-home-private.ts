/**
 * Makes an existing `OPERATOR_HOME` private at start: operator's earlier versions created its
 * folders 0755 and files 0644, so every user of the machine could read every conversation. What
 * operator creates now is private from the start (see `private-modes.ts`); this fixes what an
 * earlier version (or a copy, a restore from a backup) left open.
 */
import { chmodSync, closeSync, constants, fchmodSync, fstatSync, lstatSync, openSync, readdirSync, realpathSync, type Stats } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** What {@link makeHomePrivate} did. */
export interface HomePrivacyReport {
  /** The home's real path. */
  home: string;
  /** Entries (the home included) that were open to other users and are now the owner's alone. */
  fixed: number;
  /** Entries whose mode could not be changed (owned by another user, say), and the first error's code. */
  failed: { count: number; code?: string };
  /** True when the walk stopped at its limit before it saw every entry. */
  stopped: boolean;
  /** Why nothing was looked at, when the home is not operator's own folder (`/`, the user's home). */
  skipped?: string;
}

/** Options of {@link makeHomePrivate}. */
export interface MakeHomePrivateOptions {
  /** The user's home folder, which is never changed recursively. Default `os.homedir()`. */
  userHome?: string;
  /** Entries looked at, at most. Default 200,000. */
  maxEntries?: number;
}

/** Folders deeper than this below the home are not walked (a bound, whatever the tree holds). */
const maxDepth = 64;

/** Group and other permission bits. */
const openBits = 0o077;

/**
 * Removes every group and other permission bit under `home` (so folders become 0700 at most,
 * files 0600 or 0700), without following symlinks: a symlink is left as it is, and what it points
 * to is never changed. The home folder is closed first, so what lies inside is out of others'
 * reach at once; the rest is walked children before parents, so a walk that stops at its limit
 * leaves the folders it did not finish open, and the next start looks at them again (the start-up
 * output says how to finish by hand).
 *
 * A private folder is not walked, and a home whose folder and top-level entries are all private
 * not at all: nothing below a private folder can be reached by another user, and start-up stays
 * as quick as it was. A home that does not exist
 * yet is left to be made (privately) when first needed. The user's home folder and `/` are never
 * walked: they are not operator's to change.
 *
 * Synchronous on purpose: it runs once, before the gateway serves anything.
 */
export function makeHomePrivate(home: string, options: MakeHomePrivateOptions = {}): HomePrivacyReport {
  const real = realPathOf(home);
  const report: HomePrivacyReport = { home: real ?? resolve(home), fixed: 0, failed: { count: 0 }, stopped: false };
  if (real === undefined) return report;
  const stats = lstatOrUndefined(real);
  if (!stats?.isDirectory()) return report;
  const top = listOrEmpty(real).map((name) => join(real, name));
  const topStats = top.map((path) => [path, lstatOrUndefined(path)] as const);
  if (!isOpen(stats) && topStats.every(([, entry]) => entry === undefined || !isOpen(entry))) return report;
  const userHome = realPathOf(options.userHome ?? homedir());
  if (real === '/' || real === userHome) return { ...report, skipped: real === '/' ? 'it is the root folder' : 'it is your home folder' };
  const budget = { left: options.maxEntries ?? 200_000 };
  close(real, stats, report);
  for (const [path, entry] of topStats) {
    if (entry === undefined) continue;
    if (!walk(path, entry, 1, budget, report)) {
      report.stopped = true;
      break;
    }
  }
  return report;
}

/**
 * The start-up lines for `report`: none when nothing was open, else one saying how many entries
 * were made private, and what is left for the owner to do.
 */
export function describeHomePrivacy(report: HomePrivacyReport): string[] {
  const lines: string[] = [];
  const finish = `chmod -R go-rwx ${report.home}`;
  if (report.fixed > 0) lines.push(`made OPERATOR_HOME private: ${report.fixed} ${report.fixed === 1 ? 'entry was' : 'entries were'} readable by others (${report.home})`);
  if (report.failed.count > 0) {
    lines.push(`could not make ${report.failed.count} ${report.failed.count === 1 ? 'entry' : 'entries'} of OPERATOR_HOME private (${report.failed.code ?? 'unknown error'}); run: ${finish}`);
  }
  if (report.skipped !== undefined) {
    lines.push(`OPERATOR_HOME (${report.home}) is open to other users, and was left as it is because ${report.skipped}; give operator a folder of its own (OPERATOR_HOME)`);
  }
  if (report.stopped) lines.push(`OPERATOR_HOME holds too many entries to check at start; finish making it private with: ${finish}`);
  return lines;
}

/** Walks `path` children first; false when the budget ran out. */
function walk(path: string, stats: Stats, depth: number, budget: { left: number }, report: HomePrivacyReport): boolean {
  if (budget.left-- <= 0) return false;
  // A private folder keeps what it holds out of others' reach, whatever their modes.
  if (stats.isSymbolicLink() || (stats.isDirectory() && !isOpen(stats))) return true;
  if (stats.isDirectory() && depth < maxDepth) {
    for (const name of listOrEmpty(path)) {
      const child = join(path, name);
      const childStats = lstatOrUndefined(child);
      if (childStats !== undefined && !walk(child, childStats, depth + 1, budget, report)) return false;
    }
  }
  close(path, stats, report);
  return true;
}

/** Takes the group and other bits off `path` (not a symlink) when it has any. */
function close(path: string, stats: Stats, report: HomePrivacyReport): void {
  if (!isOpen(stats)) return;
  try {
    changeMode(path, stats, stats.mode & 0o7777 & ~openBits);
    report.fixed++;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // Gone since it was listed: nothing left to protect.
    if (code === 'ENOENT') return;
    report.failed.count++;
    report.failed.code ??= code;
  }
}

/**
 * Sets the mode of the entry `stats` describes, through a descriptor opened without following a
 * symlink: an entry swapped for a symlink since it was listed is not followed (Linux has no
 * `lchmod`). Entries that cannot be opened (a socket, a file its owner may not read) are changed
 * by path.
 */
function changeMode(path: string, stats: Stats, mode: number): void {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO must not wait for a writer.
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP' || code === 'ENOENT') throw error;
    chmodSync(path, mode);
    return;
  }
  try {
    const opened = fstatSync(fd);
    if (opened.ino !== stats.ino || opened.dev !== stats.dev) throw Object.assign(new Error(`${path} changed while it was made private`), { code: 'ECHANGED' });
    fchmodSync(fd, mode);
  } finally {
    closeSync(fd);
  }
}

function isOpen(stats: Stats): boolean {
  return !stats.isSymbolicLink() && (stats.mode & openBits) !== 0;
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

function listOrEmpty(folder: string): string[] {
  try {
    return readdirSync(folder);
  } catch {
    return [];
  }
}

function realPathOf(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}
