/**
 * Whether sandboxed commands with the network on can have a network namespace of their own:
 * `slirp4netns` is installed, the kernel's tap device (`/dev/net/tun`) is there and util-linux's
 * `unshare` can make the namespaces around bwrap (when operator is not root, a user namespace that
 * maps the user to itself too; as root, it also starts slirp4netns in a mount namespace of its
 * own; see `own-network.ts`).
 * Checked without starting a sandbox, so start-up stays as fast as before; `operator doctor`
 * starts a real one. Without it, network-on means sharing this machine's network, and start-up
 * says so.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { findExecutable, isExecutable } from '../../core/executables.ts';
import type { OwnNetworkSpec } from './own-network.ts';

/** What gives commands a network of their own, or why nothing can. */
export type Slirp4netnsDetection = { found: true; spec: OwnNetworkSpec } | { found: false; reason: string };

/** Options of {@link detectSlirp4netns}. */
export interface DetectSlirp4netnsOptions {
  /** The executable to use; default the first `slirp4netns` on `searchPath`, then in /usr/bin. */
  slirp4netns?: string;
  /** A PATH-style list of folders. */
  searchPath?: string;
}

/** How to install it, for the messages that say it is missing. */
export const slirp4netnsInstall = 'apt-get install slirp4netns';

const unshareChecked = new Map<string, boolean>();

/** Finds `slirp4netns`, the tap device it needs and an `unshare` (unprivileged, one that maps the current user). */
export function detectSlirp4netns(options: DetectSlirp4netnsOptions = {}): Slirp4netnsDetection {
  if (process.platform !== 'linux') return { found: false, reason: `slirp4netns needs Linux, and this is ${process.platform}` };
  const searchPath = `${options.searchPath ?? ''}${path.delimiter}/usr/bin${path.delimiter}/usr/local/bin`;
  const slirp4netns = options.slirp4netns ?? findExecutable('slirp4netns', searchPath);
  if (slirp4netns === undefined || !isExecutable(slirp4netns)) {
    return { found: false, reason: `slirp4netns was not found${options.slirp4netns ? ` at ${options.slirp4netns}` : ''} (${slirp4netnsInstall})` };
  }
  if (!existsSync('/dev/net/tun')) return { found: false, reason: 'there is no /dev/net/tun, which slirp4netns needs' };
  const unshare = findExecutable('unshare', searchPath);
  if (process.getuid?.() === 0) {
    // Its sandbox's unmounts would otherwise reach this machine's shared mounts (see `own-network.ts`).
    if (unshare === undefined) return { found: false, reason: 'operator is root, and then slirp4netns needs util-linux\'s `unshare` to make the network namespace and keep its sandbox\'s unmounts to itself' };
    return { found: true, spec: { slirp4netns, unshare, root: true } };
  }
  if (unshare === undefined || !mapsCurrentUser(unshare)) {
    return { found: false, reason: 'operator is not root, and then slirp4netns needs util-linux 2.38 or newer (`unshare --map-current-user`)' };
  }
  return { found: true, spec: { slirp4netns, unshare, root: false } };
}

/** Whether this `unshare` knows `--map-current-user` (util-linux 2.38); asked once per executable. */
function mapsCurrentUser(unshare: string): boolean {
  let known = unshareChecked.get(unshare);
  if (known === undefined) {
    const help = spawnSync(unshare, ['--help'], { encoding: 'utf8', timeout: 5_000, env: {} });
    known = help.status === 0 && help.stdout.includes('--map-current-user');
    unshareChecked.set(unshare, known);
  }
  return known;
}

/**
 * The network part of the start-up line: `network off`, `network on, its own through
 * slirp4netns`, or `network on, shared with this machine (...)` saying why.
 */
export function describeCommandNetwork(network: boolean, detection: Slirp4netnsDetection | undefined): string {
  if (!network) return 'network off';
  if (detection?.found) return 'network on, a namespace of its own through slirp4netns';
  const why = detection ? `: ${detection.reason}` : '';
  return `network on, shared with this machine and its loopback services${why}`;
}
