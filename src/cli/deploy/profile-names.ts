/** Which profiles a deploy uploads when none is named: every one the Node gateway could load. */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Profile names: letters, digits, `-` and `_` (as `assertProfile` takes them). */
const profileName = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** `default`, then every profile folder built in or in `home/profiles`, sorted. */
export function allProfileNames(home: string, builtin: string): string[] {
  const found = new Set<string>();
  for (const folder of [join(builtin, 'profiles'), join(home, 'profiles')]) {
    let entries;
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      // No profiles folder: only `default`, which always exists.
      continue;
    }
    for (const entry of entries) if (entry.isDirectory() && profileName.test(entry.name) && entry.name !== 'default') found.add(entry.name);
  }
  return ['default', ...[...found].sort()];
}
