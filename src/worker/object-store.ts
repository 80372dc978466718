/** The project's one `Store` over a Durable Object's own storage (see `durable-object-driver.ts`). */
import { createStorage } from 'unstorage';
import type { Store } from '../store/store.ts';
import { createStore } from '../store/unstorage-store.ts';
import { durableObjectDriver } from './durable-object-driver.ts';

/**
 * A `Store` over `storage`, an object's `ctx.storage`: use it only inside that object.
 * `unconfirmed`: its writes do not hold the object's outgoing calls (see `durable-object-driver.ts`).
 */
export function objectStore(storage: DurableObjectStorage, options: { unconfirmed?: boolean } = {}): Store {
  // The object is its storage's one writer.
  return createStore({ storage: createStorage({ driver: durableObjectDriver({ storage, ...options }) }), singleWriter: true });
}
