export type { Store } from './store.ts';
export { createStore, type StoreOptions } from './unstorage-store.ts';
export { createStoreFromEnv, operatorHome, type StoreEnvironment } from './from-env.ts';
export { assertValidKey } from './keys.ts';
export { KeyedMutex } from './keyed-mutex.ts';
export { StoreError, isStoreFailure, isStoreUnreachable, toStoreError, type StoreOperation } from './store-error.ts';
