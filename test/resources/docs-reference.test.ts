/** The agent's pointer to operator's own documentation names files that exist in this repository. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { docsReference } from '../../src/resources/docs-reference.ts';

const root = join(import.meta.dirname, '..', '..');

describe('the docs reference', () => {
  it('lists the README and docs/ of the repository, each an existing path', () => {
    const block = docsReference(root)!;
    const paths = block.split('\n').slice(1).map((line) => line.slice(line.lastIndexOf(': ') + 2));
    expect(paths).toContain(join(root, 'README.md'));
    expect(paths).toContain(join(root, 'docs'));
    for (const path of paths) expect(existsSync(path)).toBe(true);
  });

  it('is left out where no documentation exists', () => {
    expect(docsReference(join(root, 'no-such-folder'))).toBeUndefined();
  });
});
