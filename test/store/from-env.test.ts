import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/core/errors.ts';
import { createStoreFromEnv, operatorHome } from '../../src/store/from-env.ts';

describe('operatorHome', () => {
  it('defaults to ~/.operator', () => {
    expect(operatorHome({ HOME: '/home/me' })).toBe('/home/me/.operator');
    expect(operatorHome({})).toBe(join(homedir(), '.operator'));
  });

  it('expands a leading ~ and resolves relative paths', () => {
    expect(operatorHome({ OPERATOR_HOME: '~/bots/op', HOME: '/home/me' })).toBe('/home/me/bots/op');
    expect(operatorHome({ OPERATOR_HOME: '~', HOME: '/home/me' })).toBe('/home/me');
    expect(operatorHome({ OPERATOR_HOME: 'rel/dir' })).toBe(resolve('rel/dir'));
    expect(operatorHome({ OPERATOR_HOME: '/srv/operator' })).toBe('/srv/operator');
  });
});

describe('createStoreFromEnv', () => {
  it('creates a memory store', async () => {
    const store = createStoreFromEnv({ OPERATOR_STORE: 'memory' });
    await store.set('a', 1);
    expect(await store.get('a')).toBe(1);
    await store.close();
  });

  it('needs a URL for redis and refuses unknown backends', () => {
    expect(() => createStoreFromEnv({ OPERATOR_STORE: 'redis' })).toThrow(ConfigurationError);
    expect(() => createStoreFromEnv({ OPERATOR_STORE: 'sqlite' })).toThrow(/Unknown OPERATOR_STORE/);
  });

  it('creates a redis store without connecting until used', async () => {
    const store = createStoreFromEnv({ OPERATOR_STORE: 'redis', OPERATOR_REDIS_URL: 'redis://127.0.0.1:1' });
    await store.close();
  });
});
