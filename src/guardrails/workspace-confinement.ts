/** Built-in guardrail: file tools stay inside the workspace. */
import path from 'node:path';
import picomatch from 'picomatch';
import type { Guardrail } from '../agent/guardrail.ts';
import type { ToolCallPart } from '../llm/types.ts';
import { resolvePath } from '../tools/builtin/paths.ts';
import { patchTargets } from '../tools/builtin/patch-plan.ts';
import { isInside, resolveRealPath } from './real-path.ts';

/** Options of {@link createWorkspaceConfinement}. */
export interface WorkspaceConfinementOptions {
  /** Folders the file tools may use; relative paths in calls resolve against the first. */
  roots: string[];
  /**
   * Paths no file tool may touch even inside a root: operator's own state, control file, web
   * token, outbox and extensions when the workspace contains `OPERATOR_HOME`, and the `.env`
   * files operator loads (see `privatePaths`).
   */
  hidden?: string[];
}

/** Tools whose `path` argument names what they read or write. */
const pathTools = new Set(['read_file', 'send_file', 'write_file', 'edit_file', 'list_dir', 'grep', 'glob', 'code']);

/**
 * Blocks `read_file`, `write_file`, `edit_file`, `list_dir`, `grep`, `glob` and `apply_patch`
 * calls that reach outside every root. Paths are resolved as the tools resolve them (relative to
 * `roots[0]`, `~` to the home folder, `..` collapsed), then symlinks are followed, so neither
 * `../..` nor a link pointing out of the workspace gets through. For `glob` the fixed start of
 * the pattern counts too (`../../etc/*`), for `grep` its `include` pattern's; for `apply_patch`
 * every file the patch changes. A second line only: the file worker's sandbox is the boundary.
 */
export function createWorkspaceConfinement({ roots, hidden = [] }: WorkspaceConfinementOptions): Guardrail {
  if (roots.length === 0) throw new RangeError('workspace confinement needs at least one root');
  const base = path.resolve(roots[0]!);
  /** Real paths of root lists, resolved once per list (a turn's workspace repeats its list). */
  const resolved = new WeakMap<readonly string[], Promise<string[]>>();
  const real = (list: readonly string[]) => {
    let paths = resolved.get(list);
    if (!paths) {
      paths = Promise.all(list.map((root) => resolveRealPath(path.resolve(root))));
      resolved.set(list, paths);
    }
    return paths;
  };
  return {
    name: 'workspace-confinement',
    async beforeCall(call, turn) {
      const targets = await targetsOf(call);
      if (targets.length === 0) return;
      // A chat turn may have a workspace of its own (a conversation's folder, say).
      const workspace = turn?.workspace;
      const allowed = await real(workspace?.roots ?? roots);
      const secret = await real(hidden);
      const closed = workspace?.hidden ? await real(workspace.hidden) : [];
      const from = workspace ? path.resolve(workspace.cwd) : base;
      for (const target of targets) {
        const actual = await resolveRealPath(resolvePath(from, target));
        const shown = actual === target ? target : `${target} (${actual})`;
        const privateEntry = secret.find((entry) => isInside(entry, actual));
        if (privateEntry !== undefined) return { action: 'block', reason: privateReason(shown, privateEntry) };
        // A folder hidden in this turn stays reachable only through a root inside it (not one
        // that is the hidden folder itself: a workspace that is OPERATOR_HOME opens nothing).
        const through = (entry: string) => allowed.some((root) => root !== entry && isInside(entry, root) && isInside(root, actual));
        if (closed.some((entry) => isInside(entry, actual) && !through(entry))) return { action: 'block', reason: `${shown} is not open to this conversation` };
        if (allowed.some((root) => isInside(root, actual))) continue;
        return { action: 'block', reason: `${shown} is outside the workspace; allowed: ${allowed.join(', ')}` };
      }
    },
  };
}

/** Why a call reaching the private `entry` is refused; a `.env` file is named as what it is. */
function privateReason(shown: string, entry: string): string {
  if (path.basename(entry) === '.env') return `${shown} is a .env file operator loads its keys from, which no tool may read or change`;
  return `${shown} is operator's private state, which no tool may touch`;
}

/**
 * The paths a call would touch, as the model wrote them; for `apply_patch`, the files of the very
 * reading the tool applies (`patch-plan.ts`).
 */
async function targetsOf(call: ToolCallPart): Promise<string[]> {
  const args = call.arguments ?? {};
  if (call.name === 'apply_patch') return typeof args.patch === 'string' ? patchTargets(args.patch) : [];
  if (!pathTools.has(call.name)) return [];
  const given = typeof args.path === 'string' && args.path !== '' ? args.path : undefined;
  const targets = given === undefined ? [] : [given];
  const pattern = call.name === 'glob' ? args.pattern : call.name === 'grep' ? args.include : undefined;
  if (typeof pattern === 'string') {
    const start = picomatch.scan(pattern).base;
    if (start !== '') targets.push(given === undefined || path.isAbsolute(start) ? start : path.join(given, start));
  }
  return targets;
}
