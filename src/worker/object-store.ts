/** The project's one `Store` over a Durable Object's own storage (see `durable-object-driver.ts`). */
import { createStorage } from 'unstorage';
import type { Store } from '../store/store.ts';
import { createStore } from '../store/unstorage-store.ts';
import { durableObjectDriver } from './durable-object-driver.ts';

/** A `Store` over `storage`, an object's `ctx.storage`: use it only inside that object. */
export function objectStore(storage: DurableObjectStorage): Store {
  // The object is its storage's one writer.
  return createStore({ storage: createStorage({ driver: durableObjectDriver(storage) }), singleWriter: true });
}
