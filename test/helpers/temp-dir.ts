/**
 * Temp folders on the real filesystem that last one test: each is removed after the test that
 * made it, whether it passed or not.
 */
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';

const created: string[] = [];

afterEach(async () => {
  await Promise.all(created.splice(0).map((directory) => rm(directory, { recursive: true, force: true })));
});

/**
 * A fresh, empty folder named `<prefix><random>`, removed after the test. Its real path (the OS
 * temp folder may be behind a link), so it compares equal to what the code under test or `pwd`
 * reports.
 */
export async function makeTempDir(prefix = 'operator-test-'): Promise<string> {
  const directory = await realpath(await mkdtemp(path.join(tmpdir(), prefix)));
  created.push(directory);
  return directory;
}
