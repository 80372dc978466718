/**
 * The store contract on Redis, against a `redis-server` started for this file. Without the binary
 * the suite is reported as skipped with the reason in its name, and fails under CI (`CI` set),
 * where redis-server is installed and the suite must run.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { createStore } from '../../src/store/unstorage-store.ts';
import { whenInstalled } from '../helpers/needs-program.ts';
import { describeStoreContract } from './store-contract.ts';
import { findRedisServer, startRedisServer, type RedisTestServer } from './redis-server.ts';

const needed = { suite: 'Store contract: redis', program: 'redis-server on PATH', install: 'apt-get install -y redis-server', runs: 'the Redis store contract suite' };

whenInstalled(findRedisServer(), needed, (binary) => {
  let server: RedisTestServer;
  beforeAll(async () => {
    server = await startRedisServer(binary);
  });
  afterAll(async () => {
    await server?.stop();
  });
  // A fresh namespace per test keeps tests apart on the shared server.
  describeStoreContract('redis', ({ now }) => createStore({ driver: 'redis', url: server.url, base: `test-${randomUUID()}`, now }));
});
