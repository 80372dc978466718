/**
 * Whose turn may write what every conversation of a profile reads. The profile's MEMORY.md,
 * USER.md and skills are in the prompt of every conversation that uses the profile, the owner's
 * direct messages included: a stranger's write there would be a standing instruction to the
 * owner's agent. So they are written from the owner's seats only; other seats keep memory of
 * their own conversation (`memory`), and `skill_manage` is not theirs at all.
 */
import type { TurnContext } from '../tool.ts';

/**
 * Tools offered in the owner's seats only, whatever is granted: `skill_manage` writes skills that
 * every conversation of the profile lists and follows.
 */
export const ownerOnlyTools: ReadonlySet<string> = new Set(['skill_manage']);

/**
 * Whether `turn` may write the profile's shared memory and skills: no turn context at all (the
 * terminal chat, an agent used directly) is the owner's; a turn the gateway made is the owner's
 * only when it says so. Anything else, a turn context without the flag included, is another seat.
 */
export function isOwnerTurn(turn: TurnContext | undefined): boolean {
  return turn === undefined || turn.owner === true;
}
