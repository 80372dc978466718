/** "Did you mean": the nearest known setting, or none when nothing is near. */
import { describe, expect, it } from 'vitest';
import { editDistance, nearestKey } from '../../src/gateway/config/nearest-key.ts';

describe('nearestKey', () => {
  const keys = ['port', 'host', 'dmPolicy', 'allowlists', 'admins', 'idleTtlSeconds', 'profiles', 'profileSettings'];

  it.each([
    ['dmPolicies', 'dmPolicy'],
    ['prot', 'port'],
    ['PORT', 'port'],
    ['allowlist', 'allowlists'],
    ['admin', 'admins'],
    ['idleTtl', 'idleTtlSeconds'],
    ['profile', 'profiles'],
  ])('suggests %s -> %s', (typed, meant) => {
    expect(nearestKey(typed, keys)).toBe(meant);
  });

  it.each(['zzz', 'model', 'x', 'telegramToken'])('suggests nothing for %s', (typed) => {
    expect(nearestKey(typed, keys)).toBeUndefined();
  });

  it('counts a swap of neighbours as one edit', () => {
    expect(editDistance('prot', 'port')).toBe(1);
    expect(editDistance('dmpolicies', 'dmpolicy')).toBe(3);
    expect(editDistance('', 'abc')).toBe(3);
  });
});
