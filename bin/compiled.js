// Whether dist/ holds the TypeScript sources as they are now: the build's stamp (dist/.built) is
// at least as new as every .ts file under src/. `bin/operator.js` runs dist/ then, the sources
// otherwise; tests that start a process of their own use the same rule.
//
// The check runs at every start, over some 650 files. `find -newer` makes it in one small
// process (about 7 ms of this process's CPU); stat-ing each file from JavaScript took about 30.
// Where `find` cannot be run, the files are compared here. `bin/operator.js` starts `find`
// without waiting for it ({@link compiledIsCurrentSoon}) and loads dist/ meanwhile.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** @param {string} directory @returns {number} the newest `.ts` file's modification time under it */
function newestSource(directory) {
  let newest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * @param {string} sources the src/ folder @param {string} stamp the build's stamp
 * @returns {boolean | undefined} whether a `.ts` file under `sources` is newer than `stamp`, as `find` says; undefined when it cannot say
 */
function newerByFind(sources, stamp) {
  const found = spawnSync('find', [sources, '-newer', stamp, '-name', '*.ts', '-print', '-quit'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 });
  if (found.error || found.status !== 0) return undefined;
  return found.stdout.trim() !== '';
}

/** @param {string} root the package's folder @returns {boolean} whether dist/ is built and no source under src/ changed since */
export function compiledIsCurrent(root) {
  const stamp = join(root, 'dist', '.built');
  if (!existsSync(stamp)) return false;
  const sources = join(root, 'src');
  const newer = newerByFind(sources, stamp);
  return newer === undefined ? statSync(stamp).mtimeMs >= newestSource(sources) : !newer;
}

/**
 * {@link compiledIsCurrent}, its `find` run without holding this process: the answer comes once
 * `find` has ended, and meanwhile the caller can load dist/ (a start's longest step).
 *
 * @param {string} root the package's folder @returns {Promise<boolean>} whether dist/ is built and no source under src/ changed since
 */
export function compiledIsCurrentSoon(root) {
  const stamp = join(root, 'dist', '.built');
  if (!existsSync(stamp)) return Promise.resolve(false);
  const sources = join(root, 'src');
  const byStat = () => statSync(stamp).mtimeMs >= newestSource(sources);
  return new Promise((resolve, reject) => {
    let printed = '';
    const find = spawn('find', [sources, '-newer', stamp, '-name', '*.ts', '-print', '-quit'], { stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 });
    find.stdout.on('data', (chunk) => (printed += chunk));
    const answer = (/** @type {() => boolean} */ decide) => {
      try {
        resolve(decide());
      } catch (error) {
        reject(error);
      }
    };
    find.once('error', () => answer(byStat));
    find.once('close', (code) => answer(code === 0 ? () => printed.trim() === '' : byStat));
  });
}
