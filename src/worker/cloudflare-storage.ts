/**
 * The Worker's KV and R2 bindings as unstorage `Storage`s, the project's one storage interface:
 * `RESOURCES` through unstorage's `cloudflare-kv-binding` driver, `FILES` through its
 * `cloudflare-r2-binding` driver (keeping R2's `/` keys: `r2-slash-driver.ts`). Each is made once
 * per binding, so what is cached per storage (a profile's bundle, `resources/bundle-source.ts`)
 * lasts as long as the isolate, as it did when cached per binding.
 */
import { createStorage, type Storage } from 'unstorage';
import cloudflareKVBindingDriver from 'unstorage/drivers/cloudflare-kv-binding';
import { r2SlashDriver } from './r2-slash-driver.ts';
import type { WorkerEnv } from './worker-env.ts';

/** Per binding, its storage. */
const made = new WeakMap<KVNamespace | R2Bucket, Storage>();

function once(binding: KVNamespace | R2Bucket, make: () => Storage): Storage {
  let storage = made.get(binding);
  if (!storage) made.set(binding, (storage = make()));
  return storage;
}

/** The `RESOURCES` namespace (profiles' bundles, agents' memory); undefined without the binding. */
export function resourcesStorage(env: Pick<WorkerEnv, 'RESOURCES'>): Storage | undefined {
  const kv = env.RESOURCES;
  return kv && once(kv, () => createStorage({ driver: cloudflareKVBindingDriver({ binding: kv }) }));
}

/** The `FILES` bucket (files people send); undefined without the binding. */
export function filesStorage(env: Pick<WorkerEnv, 'FILES'>): Storage | undefined {
  const bucket = env.FILES;
  return bucket && once(bucket, () => createStorage({ driver: r2SlashDriver(bucket) }));
}

/**
 * The text under `key` exactly as it was put (a bundle's JSON, a memory document), or null.
 * Read raw: `getItem` parses values (unstorage's `destr`: `"42"` comes back a number, and JSON
 * that does not parse comes back as its text, hiding the error the resources' problems report).
 * The KV driver has no raw read of its own, so unstorage decodes a text that begins with
 * `base64:` into bytes: they are encoded again, which gives the text back as it was put unless its
 * base64 was not canonical (a document starting with `base64:` and something else).
 */
export async function readText(storage: Storage, key: string): Promise<string | null> {
  const value: unknown = await storage.getItemRaw(key);
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  return `base64:${Buffer.from(value as Uint8Array).toString('base64')}`;
}
