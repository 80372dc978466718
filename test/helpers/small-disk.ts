/**
 * A small disk of its own for tests of what a full or read-only disk does: a tmpfs of `sizeBytes`
 * (2 MiB by default) mounted on a fresh temp folder. `fill()` takes every free byte (a filler file
 * beside `home`), so writes there fail with a real `ENOSPC` from the kernel, and `free()` gives
 * the space back. `readOnly()` stacks a read-only bind mount over `home`: opening, creating,
 * renaming or deleting files there fails with a real `EROFS`, while descriptors opened before it
 * keep writing (Linux refuses to remount a filesystem read-only while files on it are open for
 * writing; a disk the kernel itself turns read-only after an error is not reproduced). `writable()`
 * removes it again.
 *
 * As on any disk, a write that fits into the unused end of a file's last page still works on a
 * full one: only writes that need new space fail.
 *
 * Needs root (CI runs the tests as root) and `mount`; when the disk cannot be made,
 * {@link mountSmallDisk} throws saying why, so the test fails rather than passing unnoticed.
 *
 * @example
 * const disk = await mountSmallDisk();
 * try {
 *   const gateway = await startGateway({ env: { OPERATOR_HOME: disk.home } });
 *   await disk.fill();
 *   // ... the gateway now meets ENOSPC ...
 *   await disk.free();
 * } finally {
 *   await disk.remove();
 * }
 */
import { execFile } from 'node:child_process';
import { closeSync, mkdirSync, openSync, rmSync, writeSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A mounted small disk. */
export interface SmallDisk {
  /** Where the tmpfs is mounted. */
  mountPoint: string;
  /** A folder on it for the code under test (`OPERATOR_HOME`); the filler lives beside it. */
  home: string;
  /** Takes every free byte; resolves to how many it took. Writes that need space now fail with ENOSPC. */
  fill(): Promise<number>;
  /** Gives the space `fill` took back. */
  free(): Promise<void>;
  /** Makes `home` read-only for new opens, creations, renames and deletions (EROFS). */
  readOnly(): Promise<void>;
  /** Undoes {@link readOnly}. */
  writable(): Promise<void>;
  /** Unmounts everything (lazily if a process still holds files there) and removes the mount point. */
  remove(): Promise<void>;
}

/** Options of {@link mountSmallDisk}. */
export interface SmallDiskOptions {
  /** The disk's size in bytes (default 2 MiB). */
  sizeBytes?: number;
}

function run(command: string, args: readonly string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, (error, _stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      resolve({ code, stderr: stderr || (error && typeof error.code !== 'number' ? String(error.message) : '') });
    });
  });
}

async function mustRun(command: string, args: readonly string[], what: string): Promise<void> {
  const result = await run(command, args);
  if (result.code !== 0) {
    throw new Error(`could not ${what}: \`${command} ${args.join(' ')}\` failed (${result.stderr.trim() || `exit ${result.code}`}). It needs root and mount(8) (the CI runs tests as root); it must not be skipped.`);
  }
}

/** Mounts a small tmpfs on a fresh temp folder (see the module comment). */
export async function mountSmallDisk(options: SmallDiskOptions = {}): Promise<SmallDisk> {
  const sizeBytes = options.sizeBytes ?? 2 * 1024 * 1024;
  const mountPoint = await mkdtemp(join(tmpdir(), 'operator-small-disk-'));
  try {
    await mustRun('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes},mode=0755`, 'tmpfs', mountPoint], 'mount a small disk for this test');
  } catch (error) {
    await rm(mountPoint, { recursive: true, force: true });
    throw error;
  }
  const home = join(mountPoint, 'home');
  mkdirSync(home);
  const filler = join(mountPoint, 'filler');
  let readOnly = false;

  const writable = async () => {
    if (!readOnly) return;
    await mustRun('umount', [home], 'make the small disk writable again');
    readOnly = false;
  };

  return {
    mountPoint,
    home,
    async fill() {
      const fd = openSync(filler, 'a');
      const chunk = Buffer.alloc(64 * 1024, 0x78);
      let taken = 0;
      try {
        // Big writes first, then ever smaller ones: a short write leaves less than a chunk free.
        for (let size = chunk.length; size >= 1; size = Math.floor(size / 2)) {
          for (;;) {
            try {
              const written = writeSync(fd, chunk, 0, size);
              taken += written;
              if (written < size) break;
            } catch (error) {
              if ((error as NodeJS.ErrnoException).code === 'ENOSPC') break;
              throw error;
            }
          }
        }
      } finally {
        closeSync(fd);
      }
      return taken;
    },
    async free() {
      rmSync(filler, { force: true });
    },
    async readOnly() {
      if (readOnly) return;
      await mustRun('mount', ['--bind', '-o', 'ro', home, home], 'make the small disk read-only');
      readOnly = true;
    },
    writable,
    async remove() {
      await writable().catch(() => run('umount', ['-l', home]));
      const result = await run('umount', [mountPoint]);
      // A process that still holds files there (a gateway being killed) must not keep the mount.
      if (result.code !== 0) await mustRun('umount', ['-l', mountPoint], 'unmount the small disk');
      await rm(mountPoint, { recursive: true, force: true });
    },
  };
}
