/**
 * `bin/compiled.js`: dist/ runs only while its build stamp is at least as new as every source,
 * decided by `find` where it runs and by stat-ing the files where it does not.
 */
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { compiledIsCurrent, compiledIsCurrentSoon } from '../../bin/compiled.js';

const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A package folder with sources last changed at `sourceTime` and a stamp made at `stampTime` (seconds). */
function packageWith(sourceTime: number, stampTime: number | undefined): string {
  const root = mkdtempSync(join(tmpdir(), 'operator-compiled-'));
  roots.push(root);
  mkdirSync(join(root, 'src', 'deep', 'deeper'), { recursive: true });
  for (const file of ['src/a.ts', 'src/deep/b.ts', 'src/deep/deeper/c.ts']) {
    writeFileSync(join(root, file), 'export {};\n');
    utimesSync(join(root, file), 1_000, 1_000);
  }
  utimesSync(join(root, 'src/deep/deeper/c.ts'), sourceTime, sourceTime);
  // Not a source: never makes dist/ stale.
  writeFileSync(join(root, 'src', 'notes.md'), 'x');
  utimesSync(join(root, 'src', 'notes.md'), 9_999, 9_999);
  if (stampTime !== undefined) {
    mkdirSync(join(root, 'dist'));
    writeFileSync(join(root, 'dist', '.built'), 'stamp');
    utimesSync(join(root, 'dist', '.built'), stampTime, stampTime);
  }
  return root;
}

describe.each([
  ['with find', process.env.PATH ?? ''],
  ['without find (the files stat-ed here)', '/nonexistent'],
])('compiledIsCurrent, %s', (_, path) => {
  const saved = process.env.PATH;
  const withPath = <T>(run: () => T): T => {
    process.env.PATH = path;
    try {
      return run();
    } finally {
      process.env.PATH = saved;
    }
  };
  // The variant bin/operator.js uses: `find` started (with this PATH), its answer awaited.
  const soon = (root: string) => withPath(() => compiledIsCurrentSoon(root));

  it('is current when the stamp is as new as the newest source, or newer', () => {
    expect(withPath(() => compiledIsCurrent(packageWith(2_000, 2_000)))).toBe(true);
    expect(withPath(() => compiledIsCurrent(packageWith(2_000, 3_000)))).toBe(true);
  });

  it('says the same without holding the process while it looks', async () => {
    expect(await soon(packageWith(2_000, 2_000))).toBe(true);
    expect(await soon(packageWith(2_000, 3_000))).toBe(true);
    expect(await soon(packageWith(3_000, 2_000))).toBe(false);
    expect(await soon(packageWith(2_000, undefined))).toBe(false);
  });

  it('is stale when a source deep in src/ is newer than the stamp, or when there is no stamp', () => {
    expect(withPath(() => compiledIsCurrent(packageWith(3_000, 2_000)))).toBe(false);
    expect(withPath(() => compiledIsCurrent(packageWith(2_000, undefined)))).toBe(false);
  });
});
