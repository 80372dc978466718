/**
 * The store contract on Redis, against a `redis-server` started for this file. Without the binary
 * the suite is reported as skipped with the reason in its name, and fails under CI (`CI` set),
 * where redis-server is installed and the suite must run.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { createStore } from '../../src/store/unstorage-store.ts';
import { describeStoreContract } from './store-contract.ts';
import { findRedisServer, startRedisServer, type RedisTestServer } from './redis-server.ts';

const binary = findRedisServer();

if (binary) {
  let server: RedisTestServer;
  beforeAll(async () => {
    server = await startRedisServer(binary);
  });
  afterAll(async () => {
    await server?.stop();
  });
  // A fresh namespace per test keeps tests apart on the shared server.
  describeStoreContract('redis', ({ now }) => createStore({ driver: 'redis', url: server.url, base: `test-${randomUUID()}`, now }));
} else if (process.env.CI) {
  describe('Store contract: redis', () => {
    it('needs redis-server on PATH in CI', () => {
      throw new Error('redis-server is not on PATH: CI must install it (apt-get install -y redis-server) so the Redis store suite runs');
    });
  });
} else {
  console.warn('redis-server is not on PATH: the Redis store contract suite is SKIPPED');
  describe('Store contract: redis', () => {
    it.skip('SKIPPED: redis-server is not on PATH (install it to run the Redis store suite; under CI this fails)', () => {});
  });
}
