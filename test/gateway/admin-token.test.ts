/** The admin token: the variable, else the file in OPERATOR_HOME, made once with mode 0600 (also by two processes at once). */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { adminTokenMatches, adminTokenPath, bearerOf, loadAdminToken } from '../../src/gateway/admin/admin-token.ts';
import { createTempHome, removeTempHome } from '../helpers/temp-home.ts';

let home: string | undefined;
afterEach(() => {
  removeTempHome(home);
  home = undefined;
});

describe('loadAdminToken', () => {
  it('makes OPERATOR_HOME/admin-token at first use (256 random bits, mode 0600) and reads the same token after', async () => {
    home = createTempHome('operator-admin-token-');
    const first = await loadAdminToken({}, home);
    expect(first.source).toEqual({ kind: 'file', path: adminTokenPath(home), created: true });
    expect(first.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(statSync(adminTokenPath(home)).mode & 0o777).toBe(0o600);
    expect(readFileSync(adminTokenPath(home), 'utf8').trim()).toBe(first.token);
    expect(await loadAdminToken({}, home)).toEqual({ token: first.token, source: { kind: 'file', path: adminTokenPath(home), created: false } });
  });

  it('gives every process the same token when several make it at once', async () => {
    home = createTempHome('operator-admin-token-');
    const tokens = await Promise.all(Array.from({ length: 8 }, () => loadAdminToken({}, home!)));
    expect(new Set(tokens.map((loaded) => loaded.token)).size).toBe(1);
    expect(tokens.filter((loaded) => loaded.source.kind === 'file' && loaded.source.created)).toHaveLength(1);
    expect(readFileSync(adminTokenPath(home), 'utf8').trim()).toBe(tokens[0]!.token);
  });

  it('takes OPERATOR_ADMIN_TOKEN over the file, and makes no file then', async () => {
    home = createTempHome('operator-admin-token-');
    expect(await loadAdminToken({ OPERATOR_ADMIN_TOKEN: '  a-chosen-admin-token-value  ' }, home)).toEqual({ token: 'a-chosen-admin-token-value', source: { kind: 'environment' } });
    expect(() => statSync(adminTokenPath(home!))).toThrow();
  });

  it('refuses a short token, naming where it is, never the value', async () => {
    home = createTempHome('operator-admin-token-');
    await expect(loadAdminToken({ OPERATOR_ADMIN_TOKEN: 'short-secret' }, home)).rejects.toThrow(/OPERATOR_ADMIN_TOKEN is not valid \(expected at least 16 characters\)/);
    await expect(loadAdminToken({ OPERATOR_ADMIN_TOKEN: 'short-secret' }, home)).rejects.not.toThrow(/short-secret/);
    writeFileSync(adminTokenPath(home), 'tiny\n');
    await expect(loadAdminToken({}, home)).rejects.toThrow(/admin-token is not valid.*delete the file/);
  });

  it('compares tokens whatever their length, and reads a bearer header', () => {
    expect(adminTokenMatches('a-chosen-admin-token-value', 'a-chosen-admin-token-value')).toBe(true);
    expect(adminTokenMatches('a-chosen', 'a-chosen-admin-token-value')).toBe(false);
    expect(adminTokenMatches(undefined, 'a-chosen-admin-token-value')).toBe(false);
    expect(adminTokenMatches('', 'a-chosen-admin-token-value')).toBe(false);
    expect(bearerOf(new Request('http://x/', { headers: { authorization: 'Bearer abc.def' } }))).toBe('abc.def');
    expect(bearerOf(new Request('http://x/', { headers: { authorization: 'Basic abc' } }))).toBeUndefined();
  });
});
