/**
 * Reading a profile's bundle from KV, once per isolate: the bundle is kept with the index's stamp
 * it was read under, and read again when the stamp changes (a new `operator deploy resources`) or
 * when asked to (`/reload`). Without a bundle in KV the Worker still answers, with the default
 * persona, and says what to run.
 */
import { bundleFormat, profileKey, profilesKey, type BundleIndex, type ResourceBundle } from '../../cli/deploy/resource-bundle-format.ts';
import type { Storage } from 'unstorage';
import type { ResourceProblem } from '../../resources/types.ts';
import { readText } from '../cloudflare-storage.ts';

/** A bundle as read, and what went wrong reading it. */
export interface ReadBundle {
  bundle: ResourceBundle;
  /** Problems of this read (missing or unreadable bundle); the bundle's own are in `bundle.problems`. */
  problems: ResourceProblem[];
  /** The index's stamp the bundle was read under; undefined when KV has no index. */
  stamp: string | undefined;
}

/** Per storage (one per namespace binding, see `resourcesStorage`), per profile: the last read. */
const cache = new WeakMap<Storage, Map<string, ReadBundle>>();

/**
 * `profile`'s bundle: the cached one while the index's stamp is unchanged, else read from KV
 * (always with `fresh`). A profile without a bundle gets `default`'s, and without that an empty
 * bundle (the default persona, no skills or knowledge), each with a problem saying so.
 */
export async function readBundle(kv: Storage, profile: string, options: { fresh?: boolean } = {}): Promise<ReadBundle> {
  const problems: ResourceProblem[] = [];
  const index = await readJson<BundleIndex>(kv, profilesKey, problems);
  const stamp = typeof index?.stamp === 'string' ? index.stamp : undefined;
  let profiles = cache.get(kv);
  if (!profiles) cache.set(kv, (profiles = new Map()));
  const cached = profiles.get(profile);
  if (!options.fresh && cached && cached.stamp === stamp && problems.length === 0) return cached;

  let bundle = await readProfileBundle(kv, profile, problems);
  if (!bundle && profile !== 'default') {
    bundle = await readProfileBundle(kv, 'default', problems);
    if (bundle) problems.push({ file: profileKey(profile), message: `no resources uploaded for profile "${profile}": using those of "default"; run \`operator deploy resources --profile ${profile}\`` });
  }
  if (!bundle) {
    problems.push({ file: profileKey(profile), message: 'no resources uploaded for this profile: the default persona answers, without skills or knowledge. Run `operator deploy resources` to upload them' });
    bundle = emptyBundle(profile);
  }
  const read: ReadBundle = { bundle, problems, stamp };
  profiles.set(profile, read);
  return read;
}

/** The profiles uploaded (the deploy's index), `default` first; `default` alone when none are. */
export async function uploadedProfiles(kv: Storage): Promise<string[]> {
  const index = await readJson<BundleIndex>(kv, profilesKey, []);
  const names = Array.isArray(index?.profiles) ? index.profiles.filter((name): name is string => typeof name === 'string') : [];
  return ['default', ...names.filter((name) => name !== 'default')];
}

/** The bundle under `profile:<name>`, or undefined when there is none or it cannot be used (with a problem). */
async function readProfileBundle(kv: Storage, profile: string, problems: ResourceProblem[]): Promise<ResourceBundle | undefined> {
  const bundle = await readJson<ResourceBundle>(kv, profileKey(profile), problems);
  if (bundle === undefined) return undefined;
  if (bundle.format !== bundleFormat || !Array.isArray(bundle.skills) || !Array.isArray(bundle.knowledge)) {
    problems.push({ file: profileKey(profile), message: `the bundle is in format ${String(bundle.format)}, this Worker reads format ${bundleFormat}: upload it again with this version's \`operator deploy resources\`` });
    return undefined;
  }
  return bundle;
}

/** A JSON value from KV; undefined when the key is missing or its value is not JSON (with a problem). */
async function readJson<T>(kv: Storage, key: string, problems: ResourceProblem[]): Promise<T | undefined> {
  // Parsed here, not by unstorage, so a broken value is reported with its parse error.
  const text = await readText(kv, key);
  if (text === null) return undefined;
  try {
    return JSON.parse(text) as T;
  } catch (error) {
    problems.push({ file: key, message: `not valid JSON (${error instanceof Error ? error.message : String(error)}): upload it again with \`operator deploy resources\`` });
    return undefined;
  }
}

/** A bundle with nothing in it: the prompt then has the default persona and guidelines. */
export function emptyBundle(profile: string): ResourceBundle {
  return { format: bundleFormat, profile, hash: '', identity: {}, rules: { text: '', files: [] }, skills: [], knowledge: [], knowledgeInjection: '', memorySeed: {}, problems: [] };
}
