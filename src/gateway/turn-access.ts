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
 *
 * A turn run for something an earlier turn made (a scheduled job, a pipeline run) is given that
 * turn's kept seat: it gets the lesser of that seat and the one of where it runs, so a job an
 * admin set in a group has the group's tools in the admin's direct messages too.
 */
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { toolGroups, type ToolGroup } from './config/schema.ts';
import type { Tool, TurnContext, Workspace } from '../tools/tool.ts';
import { lesserSeat, ownerSeat, type TurnSeat } from '../tools/turn-seat.ts';
import { keySegment } from './dedupe.ts';
import { ownerOnlyTools } from '../tools/resources/owner-turn.ts';
import { isExtensionTool } from '../agent/extensions.ts';
import type { SeatTools, ToolGrants, ToolSeat } from './access/tool-grants.ts';
import { privateFolderMode } from '../core/private-modes.ts';

/** What {@link TurnAccess.forTurn} adds to a turn's context. */
export type TurnTools = Pick<TurnContext, 'tools' | 'workspace' | 'prepareWorkspace'> & { seat: TurnSeat; owner: boolean };

/** Options of {@link TurnAccess}. */
export interface TurnAccessOptions {
  grants: ToolGrants;
  /** The gateway's working directory (the shared workspace). */
  cwd: string;
  /** `OPERATOR_HOME`: hidden from everyone but the owner, but for the conversation's own folder. */
  home: string;
  /**
   * Whether the operating system confines the file and command tools (bubblewrap runs). Without
   * it, seats other than the owner's get none of them (fail closed): reading included, since the
   * file worker would see the whole machine. Default true.
   */
  confined?: boolean;
}

/** Conversation folders known to exist; bounded, since a miss only costs a `mkdir`. */
const maxKnownFolders = 10_000;

/** Decides a turn's tools and workspace. */
export class TurnAccess {
  readonly #grants: ToolGrants;
  readonly #cwd: string;
  readonly #hidden: readonly string[];
  /** Offered names per tool list and groups, so equal seats share one set (the agent caches by it). */
  readonly #offers = new WeakMap<readonly Tool[], Map<string, ReadonlySet<string>>>();
  readonly #folders = new Set<string>();
  readonly #confined: boolean;

  constructor(options: TurnAccessOptions) {
    this.#confined = options.confined ?? true;
    this.#grants = options.grants;
    this.#cwd = options.cwd;
    this.#hidden = [options.home];
  }

  /**
   * The tools and workspace of a turn in the conversation whose profile's temp folder is
   * `tempDirectory`, offering from `tools` (the agent's). With `kept` (the seat of the turn that
   * made what this turn runs for), the turn gets the lesser of the two seats.
   */
  async forTurn(seat: ToolSeat & { sessionKey: string }, tools: readonly Tool[], tempDirectory: string, kept?: TurnSeat): Promise<TurnTools> {
    const here = seatOf(this.#grants.seatTools(seat));
    const granted = kept ? lesserSeat(here, kept) : here;
    if (granted.owner) return { workspace: { cwd: this.#cwd, roots: [this.#cwd, dirname(tempDirectory)] }, seat: granted, owner: true };
    const own = join(tempDirectory, keySegment(seat.sessionKey));
    const workspace: Workspace = granted.workspace === 'own' ? { cwd: own, roots: [own], hidden: this.#hidden } : { cwd: this.#cwd, roots: [this.#cwd, own], hidden: this.#hidden };
    return { tools: this.#offered(tools, granted.groups), workspace, prepareWorkspace: () => this.#ensure(own), seat: granted, owner: false };
  }

  #offered(tools: readonly Tool[], groups: readonly ToolGroup[]): ReadonlySet<string> {
    let byGroups = this.#offers.get(tools);
    if (!byGroups) {
      byGroups = new Map();
      this.#offers.set(tools, byGroups);
    }
    const key = toolGroups.filter((group) => groups.includes(group)).join(',');
    let names = byGroups.get(key);
    if (!names) {
      const set = new Set(groups);
      names = new Set(tools.filter((tool) => offeredTo(tool, set) && (this.#confined || !(unconfinedTools.has(tool.machine ?? 'shell') || tool.runsInSandbox === true))).map((tool) => tool.name));
      byGroups.set(key, names);
    }
    return names;
  }

  /**
   * Makes the seat's own folder once per process, before the turn's first tool call (see
   * `TurnContext.prepareWorkspace`). Synchronous, like the store's writes: one mkdir
   * of microseconds, where `fs.promises` adds a thread-pool round trip that cost a new
   * conversation about 0.2 ms of CPU in a burst of them (bench/RESULTS.md, issue 33).
   */
  #ensure(folder: string): void {
    if (this.#folders.has(folder)) return;
    mkdirSync(folder, { recursive: true, mode: privateFolderMode });
    if (this.#folders.size >= maxKnownFolders) this.#folders.clear();
    this.#folders.add(folder);
  }
}

/** What a tool may not do for other seats where nothing confines it: files and programs. */
const unconfinedTools: ReadonlySet<string> = new Set(['read', 'write', 'shell']);

/**
 * The conversation's own tools always, but those that write what the whole profile shares
 * (`ownerOnlyTools`: skills); reading (confined to the workspace); the rest as granted.
 */
function offeredTo(tool: Tool, groups: ReadonlySet<ToolGroup>): boolean {
  if (ownerOnlyTools.has(tool.name)) return false;
  const machine = tool.machine ?? 'shell';
  // Reading is everyone's because the built-in file tools read inside the seat's sandbox; an
  // extension's tool that says it reads runs its own code in the gateway, so it needs the grant.
  if (machine === 'read' && isExtensionTool(tool)) return groups.has('read');
  return machine === 'none' || machine === 'read' || groups.has(machine);
}

/**
 * What a seat's rights are as a kept seat: the owner's whole seat, or the granted groups with the
 * working directory opened by any of them but `agents` and `mcp` (subagents work with the turn's
 * own tools, and an MCP server's tools never work in the workspace: granting them alone does not
 * open it).
 */
export function seatOf(rights: SeatTools): TurnSeat {
  if (rights.owner) return ownerSeat;
  const groups = [...rights.groups];
  return { owner: false, groups, workspace: groups.some((group) => !workspaceless.has(group)) ? 'shared' : 'own' };
}

/** Groups whose grant alone leaves a seat in its own folder. */
const workspaceless: ReadonlySet<ToolGroup> = new Set(['agents', 'mcp']);
