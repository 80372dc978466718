import { describe, expect, it } from 'vitest';
import { sameSecret } from '../../src/core/same-secret.ts';

describe('sameSecret', () => {
  it('is true only for the very secret', () => {
    expect(sameSecret('s3cret-token', 's3cret-token')).toBe(true);
    expect(sameSecret('s3cret-tokem', 's3cret-token')).toBe(false);
    expect(sameSecret('S3cret-token', 's3cret-token')).toBe(false);
  });

  it('refuses a prefix, a longer text and a missing or empty one', () => {
    expect(sameSecret('s3cret', 's3cret-token')).toBe(false);
    expect(sameSecret('s3cret-token-and-more', 's3cret-token')).toBe(false);
    expect(sameSecret('s3cret-token\u0000', 's3cret-token')).toBe(false);
    expect(sameSecret('', 's3cret-token')).toBe(false);
    expect(sameSecret(null, 's3cret-token')).toBe(false);
    expect(sameSecret(undefined, 's3cret-token')).toBe(false);
  });

  it('compares bytes, so texts that differ only beyond ASCII differ', () => {
    expect(sameSecret('clé', 'clé')).toBe(true);
    expect(sameSecret('cle\u0301', 'clé')).toBe(false);
    expect(sameSecret('clè', 'clé')).toBe(false);
  });
});
