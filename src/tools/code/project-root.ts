/**
 * Where a file's project starts: the nearest folder at or above it holding a `package.json` or a
 * `tsconfig.json`, never above the workspace root the file is in. The language server is started
 * there (one per project folder), and only where one exists.
 */
import path from 'node:path';
import { isInside } from '../../guardrails/real-path.ts';

/** The files that make a folder a project. */
export const projectMarkers = ['tsconfig.json', 'package.json'] as const;

/**
 * The nearest folder from `folder` up to `limit` (both absolute, `folder` inside `limit`) with
 * one of {@link projectMarkers}, or undefined. `isFile` looks (the turn's file worker does, in
 * the seat's sandbox: the folders come from a path the model chose).
 */
export async function findProjectRoot(folder: string, limit: string, isFile: (file: string) => Promise<boolean>): Promise<string | undefined> {
  let current = path.resolve(folder);
  const top = path.resolve(limit);
  if (!isInside(top, current)) return undefined;
  for (;;) {
    for (const marker of projectMarkers) {
      if (await isFile(path.join(current, marker))) return current;
    }
    if (current === top) return undefined;
    const parent = path.dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}
