/**
 * The unstorage Redis driver, loaded on first use: importing ioredis costs about a third of a
 * second of startup, which processes on the filesystem store should not pay.
 */
import type { Driver } from 'unstorage';

/** Options handed to `unstorage/drivers/redis`. */
export interface RedisDriverOptions {
  url: string;
  /** Prefix of every key in Redis (a namespace), without the trailing `:`. */
  base?: string;
}

/** A driver that imports and creates the Redis driver when it is first called. */
export function createLazyRedisDriver(options: RedisDriverOptions): Driver {
  let loading: Promise<Driver> | undefined;
  const load = (): Promise<Driver> => {
    loading ??= import('unstorage/drivers/redis').then(({ default: redisDriver }) =>
      redisDriver({ url: options.url, ...(options.base ? { base: options.base } : {}) }),
    );
    return loading;
  };
  return {
    name: 'redis',
    options,
    async hasItem(key, opts) {
      return (await load()).hasItem(key, opts);
    },
    async getItem(key, opts) {
      return (await load()).getItem(key, opts);
    },
    async getItems(items, commonOptions) {
      const driver = await load();
      return driver.getItems!(items, commonOptions);
    },
    async setItem(key, value, opts) {
      await (await load()).setItem!(key, value, opts);
    },
    async removeItem(key, opts) {
      await (await load()).removeItem!(key, opts);
    },
    async getKeys(base, opts) {
      return (await load()).getKeys(base, opts);
    },
    async clear(base, opts) {
      await (await load()).clear!(base, opts);
    },
    async dispose() {
      if (loading) await (await loading).dispose?.();
    },
  };
}
