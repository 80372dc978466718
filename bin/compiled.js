// Whether dist/ holds the TypeScript sources as they are now: the build's stamp (dist/.built) is
// at least as new as every .ts file under src/. `bin/operator.js` runs dist/ then, the sources
// otherwise; tests that start a process of their own use the same rule.
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

/** @param {string} root the package's folder @returns {boolean} whether dist/ is built and no source under src/ changed since */
export function compiledIsCurrent(root) {
  const stamp = join(root, 'dist', '.built');
  return existsSync(stamp) && statSync(stamp).mtimeMs >= newestSource(join(root, 'src'));
}
