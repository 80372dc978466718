/**
 * An OPERATOR_HOME an earlier version left open (folders 0755, files 0644) is made the owner's
 * alone at start, without following a symlink out of it, within a bound, and said once.
 */
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { describeHomePrivacy, makeHomePrivate } from '../../src/core/make-home-private.ts';
import { openEntries } from '../helpers/open-entries.ts';

const folders: string[] = [];
function tempFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'operator-home-modes-'));
  folders.push(folder);
  return folder;
}
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A home as an earlier version left it: 10 entries (the home included) open to everyone. */
function openHome(): { home: string; outside: string } {
  const base = tempFolder();
  const home = join(base, 'home');
  const outside = join(base, 'outside.txt');
  for (const folder of [join(home, 'state', 'sessions'), join(home, 'profiles', 'default', 'temp', 'telegram-dm-1')]) mkdirSync(folder, { recursive: true });
  writeFileSync(join(home, 'state', 'sessions', 'telegram-dm-1'), '{"text":"the launch code"}\n');
  writeFileSync(join(home, 'profiles', 'default', 'MEMORY.md'), 'notes');
  writeFileSync(join(home, 'web-token'), 'token');
  writeFileSync(outside, 'not operator\'s');
  symlinkSync(outside, join(home, 'profiles', 'link-out'));
  for (const path of [home, join(home, 'state'), join(home, 'state', 'sessions'), join(home, 'profiles'), join(home, 'profiles', 'default'), join(home, 'profiles', 'default', 'temp'), join(home, 'profiles', 'default', 'temp', 'telegram-dm-1')]) {
    chmodSync(path, 0o755);
  }
  for (const path of [join(home, 'state', 'sessions', 'telegram-dm-1'), join(home, 'profiles', 'default', 'MEMORY.md'), join(home, 'web-token'), outside]) chmodSync(path, 0o644);
  return { home, outside };
}

describe('makeHomePrivate', () => {
  it('takes every group and other bit off, counts what it changed, and says so', () => {
    const { home, outside } = openHome();
    const report = makeHomePrivate(home, { userHome: tempFolder() });
    expect(report).toMatchObject({ fixed: 10, failed: { count: 0 }, stopped: false });
    expect(openEntries(home)).toEqual([]);
    expect((statSync(join(home, 'state')).mode & 0o777).toString(8)).toBe('700');
    expect((statSync(join(home, 'web-token')).mode & 0o777).toString(8)).toBe('600');
    // The symlink's target, outside the home, is not the home's: left as it was.
    expect(lstatSync(join(home, 'profiles', 'link-out')).isSymbolicLink()).toBe(true);
    expect((statSync(outside).mode & 0o777).toString(8)).toBe('644');
    expect(describeHomePrivacy(report)).toEqual([`made OPERATOR_HOME private: 10 entries were readable by others (${report.home})`]);
  });

  it('finds nothing to do the second time, nor in a new home, nor where there is no home yet', () => {
    const { home } = openHome();
    const userHome = tempFolder();
    makeHomePrivate(home, { userHome });
    const again = makeHomePrivate(home, { userHome });
    expect(again.fixed).toBe(0);
    expect(describeHomePrivacy(again)).toEqual([]);
    expect(describeHomePrivacy(makeHomePrivate(tempFolder(), { userHome }))).toEqual([]);
    expect(describeHomePrivacy(makeHomePrivate(join(tempFolder(), 'not-yet'), { userHome }))).toEqual([]);
  });

  it('stops at its bound, closing the home first, says how to finish, and finishes on a later start with room', () => {
    const { home } = openHome();
    const userHome = tempFolder();
    const first = makeHomePrivate(home, { userHome, maxEntries: 4 });
    expect(first.stopped).toBe(true);
    // The home itself was closed first: nothing inside is reachable by others any more.
    expect((statSync(home).mode & 0o777).toString(8)).toBe('700');
    expect(openEntries(home).length).toBeGreaterThan(0);
    expect(describeHomePrivacy(first).at(-1)).toBe(`OPERATOR_HOME holds too many entries to check at start; finish making it private with: chmod -R go-rwx ${first.home}`);
    const later = makeHomePrivate(home, { userHome });
    expect(later.stopped).toBe(false);
    expect(openEntries(home)).toEqual([]);
  });

  it("leaves the user's own home folder and / alone, saying why", () => {
    const { home } = openHome();
    const report = makeHomePrivate(home, { userHome: home });
    expect(report).toMatchObject({ fixed: 0, skipped: 'it is your home folder' });
    expect((statSync(home).mode & 0o777).toString(8)).toBe('755');
    expect(describeHomePrivacy(report)).toEqual([
      `OPERATOR_HOME (${report.home}) is open to other users, and was left as it is because it is your home folder; give operator a folder of its own (OPERATOR_HOME)`,
    ]);
    expect(makeHomePrivate('/', { userHome: home }).skipped).toBe('it is the root folder');
  });
});
