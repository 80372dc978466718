/**
 * The store as the environment configures it: `OPERATOR_STORE` picks the backend.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { ConfigurationError } from '../core/errors.ts';
import type { Store } from './store.ts';
import { createStore } from './unstorage-store.ts';

/** The environment variables this module reads. */
export type StoreEnvironment = Partial<Record<'OPERATOR_STORE' | 'OPERATOR_REDIS_URL' | 'OPERATOR_HOME' | 'HOME', string>>;

/**
 * operator's home folder: `OPERATOR_HOME` (a leading `~` expanded), default `~/.operator`, as an
 * absolute path.
 */
export function operatorHome(env: StoreEnvironment = process.env): string {
  const home = env.OPERATOR_HOME?.trim() || '~/.operator';
  const userHome = env.HOME || homedir();
  if (home === '~') return userHome;
  if (home.startsWith('~/')) return join(userHome, home.slice(2));
  return resolve(home);
}

/**
 * Creates the store the environment asks for:
 * - `OPERATOR_STORE=fs` (default): files under `OPERATOR_HOME/state`;
 * - `OPERATOR_STORE=memory`: nothing persists;
 * - `OPERATOR_STORE=redis`: the server at `OPERATOR_REDIS_URL` (required).
 *
 * @throws ConfigurationError on an unknown backend or a missing Redis URL.
 */
export function createStoreFromEnv(env: StoreEnvironment = process.env): Store {
  const kind = env.OPERATOR_STORE?.trim() || 'fs';
  switch (kind) {
    case 'fs':
      return createStore({ driver: 'fs', base: join(operatorHome(env), 'state') });
    case 'memory':
      return createStore({ driver: 'memory' });
    case 'redis': {
      const url = env.OPERATOR_REDIS_URL?.trim();
      if (!url) throw new ConfigurationError('OPERATOR_STORE=redis needs OPERATOR_REDIS_URL (e.g. redis://localhost:6379)');
      return createStore({ driver: 'redis', url });
    }
    default:
      throw new ConfigurationError(`Unknown OPERATOR_STORE ${JSON.stringify(kind)}: use fs, memory or redis`, { value: kind });
  }
}
