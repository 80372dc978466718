/** Where a path really leads once symlinks are followed, even when it does not exist yet. */
import { readlink, realpath } from 'node:fs/promises';
import path from 'node:path';

/** Symlink hops followed before giving up, like the kernel's ELOOP limit. */
const maxLinks = 40;

/**
 * The real location of the absolute path `target`: `realpath` where it exists; otherwise the real
 * path of its nearest existing parent joined with the rest. A dangling symlink on the way is
 * followed to where it points, since writing through it would create the file there.
 */
export async function resolveRealPath(target: string): Promise<string> {
  let current = path.resolve(target);
  const rest: string[] = [];
  for (let links = 0; ; ) {
    try {
      return path.join(await realpath(current), ...rest);
    } catch {
      // Missing (or unreadable): look at the entry itself, then its parent.
    }
    const link = await readlink(current).catch(() => undefined);
    if (link !== undefined && links++ < maxLinks) {
      current = path.resolve(path.dirname(current), link);
      continue;
    }
    const parent = path.dirname(current);
    if (parent === current) return path.join(current, ...rest);
    rest.unshift(path.basename(current));
    current = parent;
  }
}

/** Whether `target` is `root` or inside it (both absolute and resolved). */
export function isInside(root: string, target: string): boolean {
  const relative = path.relative(root, target);
  return relative === '' || (relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative));
}
