/**
 * Temp folders on the real filesystem that last one test: each is removed after the test that
 * made it, whether it passed or not.
 *
 * The removal is registered with the test that asks for the folder (`onTestFinished`), not as a
 * hook of this module: the suite runs files in one process per worker (`isolate: false`), where a
 * module's top-level `afterEach` belongs to the first file that imported it and never runs for
 * the files after it, which left thousands of folders in the temp folder a day.
 *
 * A folder made outside a test (in `beforeAll`) lasts as long as its process, and its name says
 * which process that is (`<prefix>p<pid>-<random>`): the pool ends its workers with a signal, so
 * nothing runs at their end, and the next process to load this module removes the folders of
 * processes that are gone.
 */
import { readdirSync, rmSync } from 'node:fs';
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { onTestFinished } from 'vitest';

/** `<prefix>p<pid>-<six random characters>`: a folder kept for its process's life. */
const processFolder = /^operator-.*-p(\d+)-[A-Za-z0-9]{6}$/;

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

for (const name of readdirSync(tmpdir())) {
  const pid = processFolder.exec(name)?.[1];
  if (pid !== undefined && !isRunning(Number(pid))) rmSync(path.join(tmpdir(), name), { recursive: true, force: true });
}

/**
 * A fresh, empty folder named `<prefix><random>`, removed after the test. Its real path (the OS
 * temp folder may be behind a link), so it compares equal to what the code under test or `pwd`
 * reports.
 */
export async function makeTempDir(prefix = 'operator-test-'): Promise<string> {
  const made: { directory?: string } = {};
  let inTest = true;
  try {
    // Registered before anything is awaited, while the test is surely the current one.
    onTestFinished(() => (made.directory === undefined ? undefined : rm(made.directory, { recursive: true, force: true })));
  } catch {
    // Not inside a test (a `beforeAll`): named for its process, removed once it is gone.
    inTest = false;
  }
  made.directory = await realpath(await mkdtemp(path.join(tmpdir(), inTest ? prefix : `${prefix}p${process.pid}-`)));
  return made.directory;
}
