/**
 * The folder operator is installed in (its package.json, the built-in `profiles/`, `skills/`,
 * `knowledge/` and `pipelines/`), found from wherever this code was loaded: `src/core/` when the
 * sources run, a chunk under `dist/` when the build runs. A fixed `../..` would be right in one
 * of those places only.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The nearest folder above `from` whose package.json is operator's. */
export function findPackageRoot(from: string): string {
  for (let folder = from; ; folder = dirname(folder)) {
    const manifest = join(folder, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === 'operator') return folder;
    if (dirname(folder) === folder) throw new Error(`operator's package.json was not found above ${from}`);
  }
}

/** The folder operator is installed in. */
export const packageRoot = findPackageRoot(dirname(fileURLToPath(import.meta.url)));
