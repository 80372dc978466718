import { createConnection } from 'node:net';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/core/errors.ts';
import { createStoreFromEnv, operatorHome } from '../../src/store/from-env.ts';
import { startCountingRedis } from './counting-redis.ts';

/**
 * Lets a store that dials at creation get its dial out: the Redis driver module is loaded and a
 * turn of the event loop has passed (ioredis opens its socket on the next tick). A connection made
 * by then is accepted by the server before a later {@link probe}'s, so the probe's answer is the
 * point where the fake's count is complete.
 */
async function driverSettled(): Promise<void> {
  await import('unstorage/drivers/redis');
  await new Promise((resolve) => setImmediate(resolve));
}

/** Connects to the fake, sends PING and waits for the answer. */
function probe(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ port, host: '127.0.0.1' }, () => socket.write('PING\r\n'));
    socket.once('error', reject);
    socket.once('data', () => {
      socket.destroy();
      resolve();
    });
  });
}

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
    const redis = await startCountingRedis();
    try {
      const store = createStoreFromEnv({ OPERATOR_STORE: 'redis', OPERATOR_REDIS_URL: redis.url });
      await driverSettled();
      await probe(redis.port);
      expect(redis.connections).toBe(1);
      expect(redis.commands).toEqual([['PING']]);

      expect(await store.get('greeting')).toBeNull();
      expect(redis.connections).toBe(2);
      expect(redis.commands.map(([name]) => name)).toContain('GET');
      expect(redis.commands.find(([name]) => name === 'GET')).toEqual(['GET', 'greeting']);
      await store.close();
    } finally {
      await redis.close();
    }
  });

  it('closes an unused redis store without ever connecting', async () => {
    const redis = await startCountingRedis();
    try {
      const store = createStoreFromEnv({ OPERATOR_STORE: 'redis', OPERATOR_REDIS_URL: redis.url });
      await driverSettled();
      await store.close();
      await probe(redis.port);
      expect(redis.connections).toBe(1);
    } finally {
      await redis.close();
    }
  });
});
