/**
 * Throwaway OPERATOR_HOME folders, so a process under test never reads or writes the real
 * `~/.operator` (nor anything under the real HOME).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Creates an empty folder under the OS temp folder, named `<prefix><random>`, for HOME and OPERATOR_HOME. */
export function createTempHome(prefix = 'operator-home-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Removes a folder made by {@link createTempHome} with all it holds; nothing when `home` is undefined. */
export function removeTempHome(home: string | undefined): void {
  if (home) rmSync(home, { recursive: true, force: true });
}
