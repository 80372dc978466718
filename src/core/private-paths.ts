/**
 * The entries of `OPERATOR_HOME` that are operator's own business: the store (every
 * conversation's messages), the control file with its token, the web chat's login token, files
 * waiting to be sent, the extensions (code the gateway runs) and the configuration (grants among
 * it). No tool may read or change them, even where a workspace contains `OPERATOR_HOME`.
 */
import { join } from 'node:path';

/** Names of the private entries, relative to `OPERATOR_HOME`. */
export const privateEntries = ['state', 'gateway.json', 'web-token', 'outbox', 'extensions', 'operator.json'] as const;

/** The absolute private paths of `home`. */
export function privatePaths(home: string): string[] {
  return privateEntries.map((entry) => join(home, entry));
}
