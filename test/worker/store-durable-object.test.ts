/**
 * The store contract against the project's `Store` over a Durable Object's storage, inside
 * workerd. The storage can be used only inside its object, so the store is made there and every
 * test body runs there, each in one invocation of the object, as the object's own code runs.
 */
import { env, runInDurableObject } from 'cloudflare:test';
import { createStorage } from 'unstorage';
import { beforeEach } from 'vitest';
import { createStore } from '../../src/store/unstorage-store.ts';
import { durableObjectDriver } from '../../src/worker/durable-object-driver.ts';
import { describeStoreContract } from '../store/store-contract.ts';

let round = 0;
let stub: DurableObjectStub;
let storage: DurableObjectStorage | undefined;

// A fresh object for each test (file-level hooks run before the contract's own).
beforeEach(() => {
  stub = env.CONVERSATIONS.get(env.CONVERSATIONS.idFromName(`store-contract-${++round}`));
});

/** The contract's store as an object makes it (`object-store.ts`): the object is its storage's one writer. */
const inObject = (options: { unconfirmed?: boolean }) =>
  describeStoreContract(
    `Durable Object storage${options.unconfirmed ? ', writes not holding outgoing calls' : ''}`,
    ({ now }) => {
      if (!storage) throw new Error('the store is made inside its object');
      return createStore({ storage: createStorage({ driver: durableObjectDriver({ storage, ...options }) }), singleWriter: true, now });
    },
    (body) =>
      runInDurableObject(stub, async (_instance, state) => {
        storage = state.storage;
        return body();
      }),
  );

inObject({});
// As a conversation's object keeps its state (`conversation-object.ts`).
inObject({ unconfirmed: true });
