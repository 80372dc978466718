/**
 * Where the `code` tool may look, by the same rules as `read_file`: the file asked about is
 * checked by the workspace-confinement guardrail itself, as a `read_file` of it would be (inside
 * the turn's workspace roots, symlinks followed, never operator's private state, never a folder
 * hidden from the turn), whether or not that guardrail runs for this agent. Locations the server
 * answers with are sorted the same way: inside (shown with their source line), outside (shown by
 * path only) or in a place hidden from the turn (not named at all).
 */
import path from 'node:path';
import type { Guardrail } from '../../agent/guardrail.ts';
import { createWorkspaceConfinement } from '../../guardrails/workspace-confinement.ts';
import { isInside, resolveRealPath } from '../../guardrails/real-path.ts';
import type { TurnContext } from '../tool.ts';

/** Where a location stands for the turn. */
export type Visibility = 'inside' | 'outside' | 'hidden';

/** Most working directories remembered (turns without a workspace of their own). */
const maxGuards = 100;

/** The workspace rules of one `code` tool. */
export class CodeWorkspace {
  readonly #hidden: readonly string[];
  /** A guardrail per working directory, for calls without a turn workspace (its only root). */
  readonly #guards = new Map<string, Guardrail>();
  /** Real paths of path lists, resolved once per list. */
  readonly #real = new WeakMap<readonly string[], Promise<string[]>>();

  /** `hidden`: paths no call may reach, whatever the workspace (operator's private state). */
  constructor(hidden: readonly string[] = []) {
    this.#hidden = hidden;
  }

  /**
   * Why `file` (absolute) may not be read in this call, or undefined when it may. Without a
   * turn workspace, the working directory `cwd` is the one root.
   */
  async refusal(file: string, cwd: string, turn: TurnContext | undefined): Promise<string | undefined> {
    const decision = await this.#guard(cwd, turn).beforeCall?.({ type: 'tool-call', id: 'code', name: 'read_file', arguments: { path: file } }, turn);
    return decision && decision.action !== 'allow' ? decision.reason : undefined;
  }

  /** The real workspace root holding the real path `file` (the innermost), or undefined. */
  async rootOf(file: string, cwd: string, turn: TurnContext | undefined): Promise<string | undefined> {
    const roots = await this.#realPaths(this.#roots(cwd, turn));
    return roots.filter((root) => isInside(root, file)).sort((a, b) => b.length - a.length)[0];
  }

  /** Whether the real path `file` is inside the workspace, outside it, or somewhere hidden from this turn. */
  async visibility(file: string, cwd: string, turn: TurnContext | undefined): Promise<Visibility> {
    if ((await this.refusal(file, cwd, turn)) === undefined) return 'inside';
    const closed = [...(await this.#realPaths(this.#hidden)), ...(await this.#realPaths(turn?.workspace?.hidden ?? []))];
    return closed.some((folder) => isInside(folder, file)) ? 'hidden' : 'outside';
  }

  #roots(cwd: string, turn: TurnContext | undefined): readonly string[] {
    return turn?.workspace?.roots ?? this.#rootsOf(cwd);
  }

  readonly #cwdRoots = new Map<string, readonly string[]>();

  /** One list object per working directory, so its real paths are resolved once. */
  #rootsOf(cwd: string): readonly string[] {
    let roots = this.#cwdRoots.get(cwd);
    if (!roots) {
      if (this.#cwdRoots.size >= maxGuards) this.#cwdRoots.clear();
      roots = [path.resolve(cwd)];
      this.#cwdRoots.set(cwd, roots);
    }
    return roots;
  }

  #guard(cwd: string, turn: TurnContext | undefined): Guardrail {
    // With a turn workspace the guardrail checks against it, whatever its own roots.
    const key = turn?.workspace ? '' : cwd;
    let guard = this.#guards.get(key);
    if (!guard) {
      if (this.#guards.size >= maxGuards) this.#guards.clear();
      guard = createWorkspaceConfinement({ roots: [path.resolve(cwd)], hidden: [...this.#hidden] });
      this.#guards.set(key, guard);
    }
    return guard;
  }

  #realPaths(list: readonly string[]): Promise<string[]> {
    let paths = this.#real.get(list);
    if (!paths) {
      paths = Promise.all(list.map((entry) => resolveRealPath(path.resolve(entry))));
      this.#real.set(list, paths);
    }
    return paths;
  }
}
