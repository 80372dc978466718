/**
 * The seat a turn acts from, in a form that can be kept: with a scheduled job, a pipeline run or
 * a subagent made in the turn, so that what it does later never has more than the turn that made
 * it. A seat only ever goes down: where such a thing runs, its seat is the lesser of the kept
 * one and the one of where it runs ({@link lesserSeat}). A kept seat that is missing (a record
 * from before seats were kept) or damaged counts as the least seat, never the owner's.
 */
import * as z from 'zod';
import type { MachineAccess } from './tool.ts';

/**
 * Where a seat's tools work, from the least to the most: `own` (the conversation's own folder),
 * `shared` (the gateway's working directory and the conversation's own folder, for granted seats),
 * `owner` (the working directory and the profile's folder).
 */
export type SeatWorkspace = 'own' | 'shared' | 'owner';

/** What a turn may use: the machine tool groups, whether it is an owner's seat, and its workspace. */
export interface TurnSeat {
  /** An owner's seat (every tool, the owner's workspace). */
  owner: boolean;
  /** The machine tool groups it may use (the conversation's own tools and reading in its own folder need none). */
  groups: readonly MachineAccess[];
  workspace: SeatWorkspace;
}

/** Every machine tool group, in one fixed order (kept seats list theirs in it). */
export const machineGroups: readonly MachineAccess[] = ['read', 'write', 'shell', 'browser', 'desktop', 'agents', 'mcp'];

const workspaceRank: Readonly<Record<SeatWorkspace, number>> = { own: 0, shared: 1, owner: 2 };

/** No machine tools, the conversation's own folder: what an unknown or missing seat gets. */
export const leastSeat: TurnSeat = Object.freeze({ owner: false, groups: Object.freeze([]), workspace: 'own' });

/** The owner's seat: every tool, the owner's workspace. */
export const ownerSeat: TurnSeat = Object.freeze({ owner: true, groups: machineGroups, workspace: 'owner' });

/**
 * The seat that has no more than either: an owner's only when both are, the groups both have, the
 * smaller workspace.
 */
export function lesserSeat(a: TurnSeat, b: TurnSeat): TurnSeat {
  if (a.owner && b.owner) return ownerSeat;
  const groups = machineGroups.filter((group) => a.groups.includes(group) && b.groups.includes(group));
  const rank = Math.min(workspaceRank[a.workspace], workspaceRank[b.workspace]);
  // Not an owner's seat, so never the owner's workspace (a granted seat's is the widest then).
  const workspace: SeatWorkspace = rank >= workspaceRank.shared ? 'shared' : 'own';
  return { owner: false, groups, workspace };
}

/** Whether `inner` has nothing that `outer` lacks. */
export function seatWithin(inner: TurnSeat, outer: TurnSeat): boolean {
  if (inner.owner && !outer.owner) return false;
  if (outer.owner) return true;
  return inner.groups.every((group) => outer.groups.includes(group)) && workspaceRank[inner.workspace] <= workspaceRank[outer.workspace];
}

const storedSeat = z.object({
  owner: z.boolean(),
  groups: z.array(z.string()),
  workspace: z.enum(['own', 'shared', 'owner']),
});

/**
 * A kept seat as read back from the store: the least seat when it is missing or malformed.
 * Groups it does not know are dropped; an owner's seat is one that says so with the owner's
 * workspace (anything less sure is read as another seat's).
 */
export function readSeat(value: unknown): TurnSeat {
  const parsed = storedSeat.safeParse(value);
  if (!parsed.success) return leastSeat;
  const { owner, groups, workspace } = parsed.data;
  if (owner && workspace === 'owner') return ownerSeat;
  return lesserSeat({ owner: false, groups: machineGroups.filter((group) => groups.includes(group)), workspace }, { owner: false, groups: machineGroups, workspace: 'shared' });
}
