/** The `bwrap` command line for one command: namespaces, privileges, the planned mounts. */
import type { Mount } from './mount-plan.ts';
import { ownNetworkFds, type OwnNetworkSpec } from './own-network.ts';

/** What {@link bubblewrapArgs} turns into arguments. */
export interface BubblewrapInvocation {
  network: boolean;
  /**
   * With the network on: a network namespace of the command's own, which the spawner joins to the
   * outside with slirp4netns before the command starts (see `own-network.ts`); bwrap shares the
   * one `unshare` made around it. Otherwise a command with the network on shares this machine's.
   */
  ownNetwork?: OwnNetworkSpec;
  /** In the order `planMounts` gives. */
  mounts: readonly Mount[];
  cwd: string;
  /** The program and its arguments (`[shell, '-c', command]` for a command). */
  argv: readonly string[];
}

/**
 * Its own PID namespace (so `/proc` shows the command's processes alone), IPC, UTS and cgroup
 * namespaces, the network's when it is off or its own; a session of its own (no reaching the terminal);
 * killed with its parent; no new privileges (bubblewrap always sets that) and, when operator
 * runs as root, no capabilities. The root stays read-only once the mounts are made.
 */
export function bubblewrapArgs(invocation: BubblewrapInvocation): string[] {
  const args = ['--die-with-parent', '--new-session', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try'];
  const ownNetwork = invocation.network && invocation.ownNetwork !== undefined;
  // Its own network's namespace is made around bwrap (`own-network.ts` says why).
  if (!invocation.network) args.push('--unshare-net');
  // The spawner learns the sandbox's process id, and the command waits for its go.
  if (ownNetwork) args.push('--info-fd', String(ownNetworkFds.info), '--block-fd', String(ownNetworkFds.block));
  // Unprivileged, bubblewrap gives the command no capabilities anyway.
  if (process.getuid?.() === 0) args.push('--cap-drop', 'ALL');
  for (const mount of invocation.mounts) args.push(...mountArgs(mount));
  // After the system view's, so it covers the machine's resolver list.
  if (ownNetwork) args.push('--ro-bind-data', String(ownNetworkFds.resolvConf), '/etc/resolv.conf');
  args.push('--remount-ro', '/', '--chdir', invocation.cwd, '--', ...invocation.argv);
  return args;
}

function mountArgs(mount: Mount): string[] {
  switch (mount.kind) {
    case 'ro-bind':
      return ['--ro-bind', mount.source, mount.path];
    case 'bind':
      return ['--bind', mount.source, mount.path];
    case 'symlink':
      return ['--symlink', mount.target, mount.path];
    case 'tmpfs':
      return ['--tmpfs', mount.path];
    case 'proc':
      return ['--proc', mount.path];
    case 'dev':
      return ['--dev', mount.path];
    case 'dir':
      return ['--dir', mount.path];
    case 'remount-ro':
      return ['--remount-ro', mount.path];
  }
}
