/**
 * unstorage's R2 driver (`unstorage/drivers/cloudflare-r2-binding`) with the keys R2 has always
 * had. unstorage turns a key's `/` into `:` before any driver sees it, and the R2 driver passes
 * keys on as they come, so `a/b/c` would be kept as `a:b:c`. The files' keys
 * (`inbound-files.ts`) are `/`-separated, as R2's folders and the dashboard show them, and no
 * segment of theirs holds a `:` (each is a `keySegment` or a safe file name): this driver turns
 * the `:` back into `/` on the way to R2, and `/` into `:` on the way back.
 */
import type { Driver } from 'unstorage';
import cloudflareR2BindingDriver from 'unstorage/drivers/cloudflare-r2-binding';

/** Keys R2 deletes in one call at most. */
const deleteBatch = 1000;

const slashed = (key: string): string => key.replaceAll(':', '/');
const colons = (key: string): string => key.replaceAll('/', ':');

/** A driver over `bucket` whose keys reach R2 with `/` where unstorage has `:`. */
export function r2SlashDriver(bucket: R2Bucket): Driver<unknown, R2Bucket> {
  const r2 = cloudflareR2BindingDriver({ binding: bucket });
  // Every key under `base` (unstorage's form, `a:b:`), as R2 has it; R2 lists a page at a time.
  const keysUnder = async (base: string | undefined): Promise<string[]> => {
    const folder = base?.replace(/:+$/, '');
    const prefix = folder ? `${slashed(folder)}/` : undefined;
    const keys: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await bucket.list({ prefix, cursor });
      keys.push(...page.objects.map((object) => object.key));
      cursor = page.truncated ? page.cursor : undefined;
    } while (cursor !== undefined);
    return keys;
  };
  return {
    ...r2,
    hasItem: (key, opts) => r2.hasItem(slashed(key), opts),
    getItem: (key, opts) => r2.getItem(slashed(key), opts),
    getItemRaw: (key, opts) => r2.getItemRaw!(slashed(key), opts),
    setItem: (key, value, opts) => r2.setItem!(slashed(key), value, opts),
    setItemRaw: (key, value, opts) => r2.setItemRaw!(slashed(key), value, opts),
    removeItem: (key, opts) => r2.removeItem!(slashed(key), opts),
    getMeta: (key, opts) => r2.getMeta!(slashed(key), opts),
    // The R2 driver's own lists `base:`, which finds none of these keys.
    getKeys: async (base) => (await keysUnder(base)).map(colons),
    async clear(base) {
      const keys = await keysUnder(base);
      for (let index = 0; index < keys.length; index += deleteBatch) await bucket.delete(keys.slice(index, index + deleteBatch));
    },
  };
}
