import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeTempDir } from './temp-dir.ts';

describe('makeTempDir', () => {
  let fromBeforeAll: string;
  let fromBeforeEach: string;
  let fromTest: string;
  let firstEach: string;
  beforeAll(async () => {
    fromBeforeAll = await makeTempDir('operator-temp-dir-all-');
  });
  beforeEach(async () => {
    fromBeforeEach = await makeTempDir('operator-temp-dir-each-');
  });
  afterAll(() => {
    // Kept for the suite, and named for its process (removed once the process is gone).
    expect(existsSync(fromBeforeAll)).toBe(true);
    expect(basename(fromBeforeAll)).toMatch(new RegExp(`^operator-temp-dir-all-p${process.pid}-`));
  });

  it('makes a folder for the test', async () => {
    fromTest = await makeTempDir('operator-temp-dir-test-');
    firstEach = fromBeforeEach;
    expect(existsSync(fromTest)).toBe(true);
    expect(existsSync(fromBeforeEach)).toBe(true);
  });

  it('removes, as it loads, the folders kept for a process that is gone', async () => {
    // A pid no process has: beyond the kernel's largest.
    const gone = mkdtempSync(join(tmpdir(), 'operator-temp-dir-gone-p4194999-'));
    mkdirSync(join(gone, 'inside'));
    const mine = await makeTempDir('operator-temp-dir-mine-');
    vi.resetModules();
    await import('./temp-dir.ts');
    expect(existsSync(gone)).toBe(false);
    expect(existsSync(fromBeforeAll)).toBe(true);
    expect(existsSync(mine)).toBe(true);
  });

  it("removed the last test's folders once it finished", () => {
    expect(existsSync(fromTest)).toBe(false);
    expect(existsSync(firstEach)).toBe(false);
    expect(fromBeforeEach).not.toBe(firstEach);
    expect(existsSync(fromBeforeEach)).toBe(true);
    expect(existsSync(fromBeforeAll)).toBe(true);
  });
});
