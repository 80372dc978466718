/**
 * What one chat turn may use: the tools offered to the model and the workspace they work in,
 * from the seat's grants (see `access/tool-grants.ts`).
 *
 * - The owner's seats work in the gateway's working directory and the profile's folder, as the
 *   terminal does, with every tool.
 * - Anyone else without grants works in the conversation's own folder (where the documents sent
 *   there are saved): file reading there, and the conversation's own tools.
 * - Anyone else with grants works in the gateway's working directory and the conversation's own
 *   folder, with the granted tools.
 *
 * Tools that say nothing of what they do to the machine (an extension's) count as `shell`.
 */
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ToolGroup } from './config/schema.ts';
import type { Tool, TurnContext, Workspace } from '../tools/tool.ts';
import { keySegment } from './dedupe.ts';
import type { SeatTools, ToolGrants, ToolSeat } from './access/tool-grants.ts';

/** What {@link TurnAccess.forTurn} adds to a turn's context. */
export type TurnTools = Pick<TurnContext, 'tools' | 'workspace'>;

/** Options of {@link TurnAccess}. */
export interface TurnAccessOptions {
  grants: ToolGrants;
  /** The gateway's working directory (the shared workspace). */
  cwd: string;
  /** `OPERATOR_HOME`: hidden from everyone but the owner, but for the conversation's own folder. */
  home: string;
}

/** Conversation folders known to exist; bounded, since a miss only costs a `mkdir`. */
const maxKnownFolders = 10_000;

/** Decides a turn's tools and workspace. */
export class TurnAccess {
  readonly #grants: ToolGrants;
  readonly #cwd: string;
  readonly #hidden: readonly string[];
  /** Offered names per tool list and granted groups, so equal seats share one set (the agent caches by it). */
  readonly #offers = new WeakMap<readonly Tool[], Map<ReadonlySet<ToolGroup>, ReadonlySet<string>>>();
  readonly #folders = new Set<string>();

  constructor(options: TurnAccessOptions) {
    this.#grants = options.grants;
    this.#cwd = options.cwd;
    this.#hidden = [options.home];
  }

  /**
   * The tools and workspace of a turn in the conversation whose profile's temp folder is
   * `tempDirectory`, offering from `tools` (the agent's).
   */
  async forTurn(seat: ToolSeat & { sessionKey: string }, tools: readonly Tool[], tempDirectory: string): Promise<TurnTools> {
    const rights = this.#grants.seatTools(seat);
    if (rights.owner) return { workspace: { cwd: this.#cwd, roots: [this.#cwd, dirname(tempDirectory)] } };
    const own = join(tempDirectory, keySegment(seat.sessionKey));
    await this.#ensure(own);
    // Subagents work with the turn's own tools: granting them alone does not open the workspace.
    const machine = [...rights.groups].some((group) => group !== 'agents');
    const workspace: Workspace = machine ? { cwd: this.#cwd, roots: [this.#cwd, own], hidden: this.#hidden } : { cwd: own, roots: [own], hidden: this.#hidden };
    return { tools: this.#offered(tools, rights), workspace };
  }

  #offered(tools: readonly Tool[], rights: SeatTools): ReadonlySet<string> {
    let byGroups = this.#offers.get(tools);
    if (!byGroups) {
      byGroups = new Map();
      this.#offers.set(tools, byGroups);
    }
    let names = byGroups.get(rights.groups);
    if (!names) {
      names = new Set(tools.filter((tool) => offeredTo(tool, rights.groups)).map((tool) => tool.name));
      byGroups.set(rights.groups, names);
    }
    return names;
  }

  async #ensure(folder: string): Promise<void> {
    if (this.#folders.has(folder)) return;
    await mkdir(folder, { recursive: true });
    if (this.#folders.size >= maxKnownFolders) this.#folders.clear();
    this.#folders.add(folder);
  }
}

/** The conversation's own tools always; reading (confined to the workspace); the rest as granted. */
function offeredTo(tool: Tool, groups: ReadonlySet<ToolGroup>): boolean {
  const machine = tool.machine ?? 'shell';
  return machine === 'none' || machine === 'read' || groups.has(machine);
}
