/**
 * Where a file's project starts: the nearest folder at or above it holding one of its language's
 * project files (a `package.json` or a `tsconfig.json` for TypeScript, see `server-kinds.ts`),
 * never above the workspace root the file is in. The language server is started there (one per
 * project folder).
 */
import path from 'node:path';
import { isInside } from '../../guardrails/real-path.ts';

/** The files that make a folder a TypeScript project (the default of {@link findProjectRoot}). */
export const projectMarkers = ['tsconfig.json', 'package.json'] as const;

/**
 * The nearest folder from `folder` up to `limit` (both absolute, `folder` inside `limit`) with
 * one of `markers`, or undefined. `isFile` looks (the turn's file worker does, in the seat's
 * sandbox: the folders come from a path the model chose).
 */
export async function findProjectRoot(
  folder: string,
  limit: string,
  isFile: (file: string) => Promise<boolean>,
  markers: readonly string[] = projectMarkers,
): Promise<string | undefined> {
  let current = path.resolve(folder);
  const top = path.resolve(limit);
  if (!isInside(top, current)) return undefined;
  for (;;) {
    for (const marker of markers) {
      if (await isFile(path.join(current, marker))) return current;
    }
    if (current === top) return undefined;
    const parent = path.dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}
