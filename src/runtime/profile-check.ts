/**
 * Whether a profile name is valid and its folder exists, checked without loading it (the CLI
 * checks `--profile` this way before any model or agent code is imported).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigurationError } from '../core/errors.ts';
import { builtinRoot } from '../resources/layers.ts';

/** Profile names: letters, digits, `-` and `_`, at most 64 characters. */
const profileName = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/**
 * Throws a clear {@link ConfigurationError} unless `name` is a valid profile name whose folder
 * exists in `home/profiles` or among the built-in profiles (`default` always exists).
 */
export function assertProfile(name: string, home: string, builtin: string = builtinRoot): void {
  if (!profileName.test(name)) throw new ConfigurationError(`Invalid profile name "${name}": use letters, digits, - and _`);
  if (name === 'default') return;
  const folders = [join(home, 'profiles', name), join(builtin, 'profiles', name)];
  if (!folders.some((folder) => existsSync(folder))) {
    throw new ConfigurationError(`Profile "${name}" not found (looked in ${folders.join(' and ')}); create the folder to add it`);
  }
}
