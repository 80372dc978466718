/**
 * The entries of `OPERATOR_HOME` that are operator's own business: the store (every
 * conversation's messages), the control file with its token, the web chat's and the admin
 * console's login tokens, files waiting to be sent, the extensions (code the gateway runs), the
 * configuration (grants among it) and the `.env` file with its keys. No tool may read or change
 * them, even where a workspace contains `OPERATOR_HOME`.
 *
 * One private entry lies outside `OPERATOR_HOME`: the `.env` file of the working directory, which
 * operator loads its keys from and which every workspace holding the working directory would
 * otherwise show (see {@link envFilePaths}).
 */
import { join, resolve } from 'node:path';

/** Names of the private entries, relative to `OPERATOR_HOME`. */
export const privateEntries = ['state', 'gateway.json', 'web-token', 'admin-token', 'outbox', 'extensions', 'operator.json', '.env'] as const;

/**
 * The absolute private paths of `home`; with `cwd`, the working directory's `.env` too (see
 * {@link envFilePaths}).
 */
export function privatePaths(home: string, cwd?: string): string[] {
  const paths = privateEntries.map((entry) => join(home, entry));
  if (cwd !== undefined) for (const file of envFilePaths(cwd, home)) if (!paths.includes(file)) paths.push(file);
  return paths;
}

/**
 * The `.env` files operator loads its variables from, in the order it loads them: the working
 * directory's, then `OPERATOR_HOME`'s (once when they are the same file). Absolute; they may not
 * exist. Both are private entries: no tool reads, changes or lists them, and the sandbox covers
 * them wherever a workspace would show them.
 */
export function envFilePaths(cwd: string, home: string): string[] {
  const local = resolve(cwd, '.env');
  const own = join(resolve(home), '.env');
  return local === own ? [local] : [local, own];
}
