/**
 * Whether sandboxed commands with the network on can have a network namespace of their own:
 * `slirp4netns` is installed and the kernel's tap device (`/dev/net/tun`) is there. Checked
 * without running anything, so start-up stays as fast as before; `operator doctor` starts a real
 * one. Without it, network-on means sharing this machine's network, and start-up says so.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { findExecutable, isExecutable } from '../../core/executables.ts';

/** A usable `slirp4netns`, or why there is none. */
export type Slirp4netnsDetection = { found: true; slirp4netns: string } | { found: false; reason: string };

/** Options of {@link detectSlirp4netns}. */
export interface DetectSlirp4netnsOptions {
  /** The executable to use; default the first `slirp4netns` on `searchPath`, then in /usr/bin. */
  slirp4netns?: string;
  /** A PATH-style list of folders. */
  searchPath?: string;
}

/** How to install it, for the messages that say it is missing. */
export const slirp4netnsInstall = 'apt-get install slirp4netns';

/** Finds `slirp4netns` and the tap device it needs. */
export function detectSlirp4netns(options: DetectSlirp4netnsOptions = {}): Slirp4netnsDetection {
  if (process.platform !== 'linux') return { found: false, reason: `slirp4netns needs Linux, and this is ${process.platform}` };
  const slirp4netns = options.slirp4netns ?? findExecutable('slirp4netns', `${options.searchPath ?? ''}${path.delimiter}/usr/bin${path.delimiter}/usr/local/bin`);
  if (slirp4netns === undefined || !isExecutable(slirp4netns)) {
    return { found: false, reason: `slirp4netns was not found${options.slirp4netns ? ` at ${options.slirp4netns}` : ''} (${slirp4netnsInstall})` };
  }
  if (!existsSync('/dev/net/tun')) return { found: false, reason: 'there is no /dev/net/tun, which slirp4netns needs' };
  return { found: true, slirp4netns };
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
