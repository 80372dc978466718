/**
 * Bundles as the key-value pairs `wrangler kv bulk put` takes: a JSON array of `{ key, value }`,
 * each value a string (here: JSON). The index goes last, so a Worker that sees the new stamp finds
 * the new bundles already written (one bulk request, but its pairs are not promised to land at once).
 */
import { createHash } from 'node:crypto';
import { bundleFormat, profileKey, profilesKey, type BundleIndex, type ResourceBundle } from './resource-bundle-format.ts';

/** The largest value KV takes (25 MiB). */
export const maxValueBytes = 25 * 1024 * 1024;

/** One pair of a `wrangler kv bulk put` file. */
export interface KvEntry {
  key: string;
  value: string;
}

/** The pairs for `bundles` (one per profile, then the index) and the index itself. */
export function bundleEntries(bundles: readonly ResourceBundle[], deployedAt: Date): { entries: KvEntry[]; index: BundleIndex } {
  const stamp = createHash('sha256')
    .update(bundles.map((bundle) => `${bundle.profile}:${bundle.hash}`).join('\n'))
    .digest('hex')
    .slice(0, 16);
  const index: BundleIndex = { format: bundleFormat, stamp, deployedAt: deployedAt.toISOString(), profiles: bundles.map((bundle) => bundle.profile) };
  const entries = bundles.map((bundle) => ({ key: profileKey(bundle.profile), value: JSON.stringify(bundle) }));
  entries.push({ key: profilesKey, value: JSON.stringify(index) });
  return { entries, index };
}

/** The bytes of `text` in UTF-8 (KV limits values by bytes). */
export function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
