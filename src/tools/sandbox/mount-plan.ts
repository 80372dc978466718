/**
 * The sandbox's filesystem as an ordered list of mounts. bubblewrap applies mounts in order and a
 * later one covers what an earlier one showed at its path, so the order is the policy: parents
 * before children, and at one path the system's before the owner's folders before a hidden
 * entry's cover. That lets a writable workspace contain a read-only folder, and a hidden folder
 * inside the workspace (OPERATOR_HOME) be covered while the roots inside it are bound again.
 * A folder's cover is made read-only last, so a write into a hidden folder fails instead of
 * vanishing.
 *
 * A hidden file (a `.env` in the working directory) is covered by `/dev/null`, bound read-only
 * over it: bubblewrap binds it without device access, so opening it fails with "Permission
 * denied", and it can be neither written, removed nor renamed (a mount point is busy). A file
 * is covered only where a bound folder shows it: inside a hidden folder it is gone already.
 */
import { isInside } from '../../guardrails/real-path.ts';

/** One step in building the sandbox's filesystem (paths are absolute and real). */
export type Mount =
  | { kind: 'ro-bind' | 'bind'; source: string; path: string }
  | { kind: 'symlink'; target: string; path: string }
  | { kind: 'tmpfs' | 'proc' | 'dev' | 'dir' | 'remount-ro'; path: string };

/** What the sandbox shows; every path absolute and real (symlinks resolved). */
export interface MountRequest {
  /** The system view, read-only (see `systemMounts`). */
  system: readonly Mount[];
  readOnly: readonly string[];
  writable: readonly string[];
  /** Folders covered by an empty tmpfs wherever a bound folder would show them. */
  hidden: readonly string[];
  /** Files (anything but a folder) covered by an unreadable `/dev/null` wherever a bound folder would show them. */
  hiddenFiles?: readonly string[];
  /** The command's working directory: an empty folder is made for it when nothing shows it. */
  cwd: string;
}

/** Private to each command: its own /tmp, /proc (its own processes) and a minimal /dev. */
const privateMounts: readonly Mount[] = [
  { kind: 'tmpfs', path: '/tmp' },
  { kind: 'proc', path: '/proc' },
  { kind: 'dev', path: '/dev' },
];

const rank = { system: 0, readOnly: 1, writable: 2, cover: 3 } as const;

/** What covers a hidden file: opened through a bind mount (no device access), it cannot be read. */
const fileCover = '/dev/null';

/** The mounts for `request`, in the order bubblewrap must apply them. */
export function planMounts(request: MountRequest): Mount[] {
  const steps: { mount: Mount; rank: number }[] = [
    ...[...request.system, ...privateMounts].map((mount) => ({ mount, rank: rank.system })),
    ...request.readOnly.map((path) => ({ mount: { kind: 'ro-bind', source: path, path } as Mount, rank: rank.readOnly })),
    ...request.writable.map((path) => ({ mount: { kind: 'bind', source: path, path } as Mount, rank: rank.writable })),
  ];
  const binds = steps.filter((step) => step.mount.kind === 'bind' || step.mount.kind === 'ro-bind');
  const covered = request.hidden.filter((hidden) => binds.some((step) => isInside(step.mount.path, hidden)));
  for (const hidden of covered) steps.push({ mount: { kind: 'tmpfs', path: hidden }, rank: rank.cover });
  steps.sort(byOrder);
  // A file is shown when the last mount above it in that order is a bind (not a folder's cover).
  const shownFiles = (request.hiddenFiles ?? []).filter((file) => isBind(steps.findLast((step) => isInside(step.mount.path, file))?.mount));
  if (shownFiles.length > 0) {
    for (const file of shownFiles) steps.push({ mount: { kind: 'ro-bind', source: fileCover, path: file }, rank: rank.cover });
    steps.sort(byOrder);
  }
  const mounts = steps.map((step) => step.mount);
  const shownBy = mounts.findLast((mount) => isInside(mount.path, request.cwd));
  if (request.cwd !== '/' && !isBind(shownBy)) mounts.push({ kind: 'dir', path: request.cwd });
  for (const hidden of covered) mounts.push({ kind: 'remount-ro', path: hidden });
  return mounts;
}

/** Parents before children; at one path, by rank. `Array.prototype.sort` is stable, so equals keep their order. */
function byOrder(a: { mount: Mount; rank: number }, b: { mount: Mount; rank: number }): number {
  return depth(a.mount.path) - depth(b.mount.path) || a.rank - b.rank;
}

function isBind(mount: Mount | undefined): boolean {
  return mount?.kind === 'bind' || mount?.kind === 'ro-bind';
}

function depth(path: string): number {
  return path.split('/').filter(Boolean).length;
}
