/**
 * A profile's resources on Workers, from the `RESOURCES` KV namespace that `operator deploy
 * resources` fills, read through unstorage (`../cloudflare-storage.ts`). Nothing here reads a
 * filesystem.
 *
 * @example
 * const { resources, report } = await loadWorkerResources(resourcesStorage(env)!, 'default', { env });
 * new Agent({ ..., resources });
 */
import type { Storage } from 'unstorage';
import { reportOf, type WorkerReloadReport } from './reload-report.ts';
import { readBundle } from './bundle-source.ts';
import { WorkerResources, type WorkerResourcesOptions } from './worker-resources.ts';

export { WorkerResources, type WorkerResourcesOptions } from './worker-resources.ts';
export type { WorkerReloadReport } from './reload-report.ts';
export { memoryKey, type MemoryFileName } from './kv-memory-storage.ts';
export { uploadedProfiles } from './bundle-source.ts';
export { profileKey, profilesKey, type BundleIndex, type ResourceBundle } from '../../cli/deploy/resource-bundle-format.ts';

/**
 * Loads `profile`'s resources from `kv`, the `RESOURCES` namespace (`resourcesStorage`): its
 * bundle as last read in this isolate while the upload's stamp is unchanged, else read anew. Never throws for a missing or broken bundle: the
 * default persona answers and `report.problems` says what to run.
 */
export async function loadWorkerResources(kv: Storage, profile: string, options: WorkerResourcesOptions = {}): Promise<{ resources: WorkerResources; report: WorkerReloadReport }> {
  const read = await readBundle(kv, profile);
  const resources = new WorkerResources(kv, profile, read, options);
  return { resources, report: reportOf(profile, read, resources.guardrails().length) };
}
