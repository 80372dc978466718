/**
 * How a bundle names the files it came from. A bundle is read on Workers and shown in reload
 * reports there, so it names files relative to the folders a person knows (`OPERATOR_HOME/...`,
 * the operator checkout, the working directory) rather than by this machine's absolute paths.
 */
import { isAbsolute, relative, sep } from 'node:path';

/** The folders paths are named relative to. */
export interface LabelRoots {
  /** OPERATOR_HOME. */
  home: string;
  /** The operator checkout (built-in resources). */
  builtin: string;
  /** The working directory (project rules). */
  cwd: string;
}

/**
 * `path` relative to the innermost of the roots that holds it: `OPERATOR_HOME/skills/x/SKILL.md`,
 * `operator/profiles/default/SOUL.md`, `./.operator/rules.md`; a path under none stays as is.
 */
export function labelPath(path: string, roots: LabelRoots): string {
  const candidates: [string, string][] = [
    [roots.home, 'OPERATOR_HOME'],
    [roots.builtin, 'operator'],
    [roots.cwd, '.'],
  ];
  let best: { depth: number; label: string } | undefined;
  for (const [root, name] of candidates) {
    const inner = relative(root, path);
    if (inner === '' || inner.startsWith('..') || isAbsolute(inner)) continue;
    // The innermost root wins: OPERATOR_HOME inside the working directory is still OPERATOR_HOME.
    const depth = root.split(sep).length;
    if (!best || depth > best.depth) best = { depth, label: `${name}/${inner.split(sep).join('/')}` };
  }
  return best?.label ?? path;
}
