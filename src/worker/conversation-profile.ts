/**
 * Which profile a conversation on Workers answers with, and `/profile` to see or choose it. As on
 * Node, a person chooses for their own direct conversation and an admin for a group's; with no
 * `operator.json` on Workers, the choice is made in the chat and kept in the conversation's own
 * object. Only a profile uploaded with `operator deploy resources` can be chosen; without a choice
 * a conversation uses `default`.
 */

/** Where a conversation's object keeps its chosen profile. */
export const profileChoiceKey = 'conversation:profile';

/** The profile of a conversation nobody chose one for. */
export const defaultProfile = 'default';

/** A conversation's profile, the profiles uploaded, and the choice. */
export interface ProfileChoice {
  current(): Promise<string>;
  /** The profiles that can be chosen, `default` first. */
  uploaded(): Promise<string[]>;
  /** Keeps `name` for the conversation; its next turn answers with it. */
  choose(name: string): Promise<void>;
}

/** The reply to `/profile [NAME]` from `seat` (the same words as the Node gateway's). */
export async function profileCommand(args: string, seat: { admin: boolean; scope: 'dm' | 'group' }, choice: ProfileChoice): Promise<string> {
  const wanted = args.trim();
  if (!wanted) return `Profile: ${await choice.current()}`;
  if (seat.scope === 'group' && !seat.admin) return 'Only an admin can choose the profile of a group.';
  const uploaded = await choice.uploaded();
  if (!uploaded.includes(wanted)) return `There is no profile "${wanted}" here. Profiles: ${uploaded.join(', ')} (they are uploaded with \`operator deploy resources\`).`;
  await choice.choose(wanted);
  return `Profile is now ${wanted}.`;
}
