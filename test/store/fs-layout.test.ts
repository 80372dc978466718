import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { keyToPath } from '../../src/store/fs-layout.ts';

describe('keyToPath', () => {
  it('names the same file join would, for absolute, relative and root bases', () => {
    for (const base of ['/var/lib/operator/state', '/var/lib/operator/state/', 'state', './a/../state', '/'])
      for (const key of ['one', 'session:telegram:dm:100', 'spend-log:2026-11-30:person:abc']) expect(keyToPath(base, key)).toBe(join(resolve(base), ...key.split(':')));
  });

  it('refuses keys that would leave the base or name a folder', () => {
    for (const key of ['', 'a::b', 'a:..:b', '.', 'a:.', 'a/b', 'a\\b', 'a\0b', ':a', 'a:']) expect(() => keyToPath('/base', key)).toThrow(/Invalid store key/);
  });
});
