/**
 * Whether dist/ holds the compiled sources as they are now, by the rule `bin/operator.js` uses
 * to run dist/ rather than the sources: the build's stamp is at least as new as every `.ts` file
 * under src/. A test that starts a process of its own can then spare it the TypeScript compiler.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

function newestSource(directory: string): number {
  let newest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/** Whether dist/ is built and no source under src/ changed since. */
export function compiledIsCurrent(): boolean {
  const stamp = join(root, 'dist', '.built');
  return existsSync(stamp) && statSync(stamp).mtimeMs >= newestSource(join(root, 'src'));
}
