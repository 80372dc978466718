/** Helpers for resource tests: real temp directories holding file trees, and resource layers over them. */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ResourceLayers } from '../../src/resources/layers.ts';

export { makeTempDir } from '../helpers/temp-dir.ts';

/** Writes files (relative path -> content) under `root`, creating folders as needed. */
export async function writeTree(root: string, files: Record<string, string | Uint8Array>): Promise<void> {
  for (const [relative, content] of Object.entries(files)) {
    const file = path.join(root, relative);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, content);
  }
}

/** Layers for profile `work` with OPERATOR_HOME at `<root>/home` and built-ins at `<root>/builtin`. */
export function layersIn(root: string, profile = 'work'): ResourceLayers {
  return { profile, home: path.join(root, 'home'), builtin: path.join(root, 'builtin') };
}

/** A SKILL.md with the given frontmatter lines and body. */
export function skillFile(frontmatter: string, body = '# Steps\n\nDo the thing.\n'): string {
  return `---\n${frontmatter}\n---\n${body}`;
}
