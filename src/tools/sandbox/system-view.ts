/**
 * The part of the machine every sandboxed command sees, read-only: the system's programs and
 * libraries, and from `/etc` only what commands need to run, look up names and verify
 * certificates. Nothing that holds credentials (`/etc/shadow`, `/etc/ssh`, `/etc/ssl/private`,
 * `/etc/npmrc`, `/etc/environment`) is on the list.
 */
import { lstatSync, readlinkSync, realpathSync } from 'node:fs';
import { isInside } from '../../guardrails/real-path.ts';
import type { Mount } from './mount-plan.ts';

/** Programs and libraries; on merged-/usr systems all but `/usr` are links into it. */
const systemFolders = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'];

/**
 * Entries of `/etc` commands need: users and groups, name lookup, certificates, libraries, locale,
 * time, the distribution's name. Each bind costs about 0.1 ms of every command's start, so the
 * list stays short (no `hostname`, `gai.conf`, `magic`: commands work without them).
 */
const etcEntries = [
  'passwd',
  'group',
  'hosts',
  'resolv.conf',
  'nsswitch.conf',
  'protocols',
  'services',
  'ssl/certs',
  'ssl/openssl.cnf',
  'ca-certificates',
  'pki/tls/certs',
  'pki/ca-trust',
  'crypto-policies',
  'alternatives',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'localtime',
  'timezone',
  'locale.alias',
  'mime.types',
  'os-release',
  'lsb-release',
  'debian_version',
  'mtab',
];

/** Where a link may keep pointing, because the sandbox shows the same place. */
const sharedTargets = ['/usr', '/proc'];

/** What a program needs to start from the system's libraries, and nothing of /etc's settings. */
const minimalEtcEntries = ['ld.so.cache', 'ld.so.conf', 'ld.so.conf.d'];

let cached: readonly Mount[] | undefined;
let cachedMinimal: readonly Mount[] | undefined;

/**
 * The programs and libraries only, for a helper of operator's own (the file worker): no user
 * list, no resolver, no certificates; a path the model names there is not there.
 */
export function minimalSystemMounts(): readonly Mount[] {
  cachedMinimal ??= [...systemFolders, ...minimalEtcEntries.map((entry) => `/etc/${entry}`)].flatMap(mountOf);
  return cachedMinimal;
}

/**
 * The read-only mounts of the system view, for the entries that exist on this machine. Looked up
 * once per process: these do not move while the gateway runs.
 */
export function systemMounts(): readonly Mount[] {
  cached ??= [...systemFolders, ...etcEntries.map((entry) => `/etc/${entry}`)].flatMap(mountOf);
  return cached;
}

function mountOf(path: string): Mount[] {
  try {
    if (!lstatSync(path).isSymbolicLink()) return [{ kind: 'ro-bind', source: path, path }];
    const target = realpathSync(path);
    // A link into a shared place stays a link (`/bin -> usr/bin`, `/etc/localtime` naming the
    // zone); one that leads elsewhere (`/etc/resolv.conf` into `/run`) is replaced by its target.
    if (sharedTargets.some((shared) => isInside(shared, target))) return [{ kind: 'symlink', target: readlinkSync(path), path }];
    return [{ kind: 'ro-bind', source: target, path }];
  } catch {
    return [];
  }
}
