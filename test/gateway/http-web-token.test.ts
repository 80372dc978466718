/** The web login token: the variable, else the file in OPERATOR_HOME, made once with mode 0600. */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { loadWebToken, webTokenPath } from '../../src/gateway/http/index.ts';
import { createTempHome, removeTempHome } from '../helpers/temp-home.ts';

let home: string | undefined;
afterEach(() => {
  removeTempHome(home);
  home = undefined;
});

describe('loadWebToken', () => {
  it('makes OPERATOR_HOME/web-token at first use (256 random bits, mode 0600) and reads the same token after', async () => {
    home = createTempHome('operator-web-token-');
    const first = await loadWebToken({}, home);
    expect(first.source).toEqual({ kind: 'file', path: webTokenPath(home), created: true });
    expect(first.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(statSync(webTokenPath(home)).mode & 0o777).toBe(0o600);
    expect(readFileSync(webTokenPath(home), 'utf8').trim()).toBe(first.token);
    const again = await loadWebToken({}, home);
    expect(again).toEqual({ token: first.token, source: { kind: 'file', path: webTokenPath(home), created: false } });
  });

  it('takes OPERATOR_WEB_TOKEN over the file, and makes no file then', async () => {
    home = createTempHome('operator-web-token-');
    const token = await loadWebToken({ OPERATOR_WEB_TOKEN: '  a-chosen-token-of-length  ' }, home);
    expect(token).toEqual({ token: 'a-chosen-token-of-length', source: { kind: 'environment' } });
    expect(() => statSync(webTokenPath(home!))).toThrow();
  });

  it('refuses a short token, naming where it is, never the value', async () => {
    home = createTempHome('operator-web-token-');
    await expect(loadWebToken({ OPERATOR_WEB_TOKEN: 'short-secret' }, home)).rejects.toThrow(/OPERATOR_WEB_TOKEN is not valid \(expected at least 16 characters\)/);
    await expect(loadWebToken({ OPERATOR_WEB_TOKEN: 'short-secret' }, home)).rejects.not.toThrow(/short-secret/);
    writeFileSync(webTokenPath(home), 'tiny\n');
    await expect(loadWebToken({}, home)).rejects.toThrow(/web-token is not valid.*delete the file/);
    await expect(loadWebToken({}, home)).rejects.not.toThrow(/tiny/);
  });
});
