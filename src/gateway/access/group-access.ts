/**
 * Who may talk to the bot in a group, by the platform's `groupPolicy`:
 *
 * - `approval` (the default): groups an admin approved (with a pairing code, or by adding the bot
 *   there) and the chats in `allowlists.<platform>.chats`. In any other group the first message
 *   addressed to the bot gets a pairing code for the group, once; then silence until an admin
 *   approves it or the code expires (the next mention then gets a new one, within the book's
 *   limits). Nothing there reaches the model.
 * - `allowlist`: the same groups, and no codes: silence elsewhere.
 * - `open`: every group, unless `allowlists.<platform>.chats` lists some: then those only.
 *
 * `allowlists.<platform>.users`, when set, is who may address the bot in any group, as before.
 * Admins are let in before any of this (see `access-policy.ts`).
 */
import type { GroupJoin, InboundMessage } from '../../channels/types.ts';
import type { GroupPolicy } from '../config/schema.ts';
import type { ApprovedGroup, GroupAsker, GroupBook, GroupRequest } from './group-book.ts';
import { describeDuration } from './pairing-book.ts';
import { groupOf, type PairingGroup } from './pairing-group.ts';

/** The verdict on a group message (the shape of `AccessDecision`). */
export type GroupDecision =
  | { allowed: true; admin: false }
  /** `reply`: the group's pairing code, told in the group once; `reason`: for the log. */
  | { allowed: false; reply?: string; pairingCode?: string; reason?: string };

/** What the bot being added to a group came to. */
export interface GroupJoinOutcome {
  /** An admin added it: the group is approved now (`undefined` when it was already). */
  approved?: ApprovedGroup;
  /** The pairing code to tell in the group (a non-admin added the bot to a group not yet approved). */
  reply?: string;
  pairingCode?: string;
  /** Why nothing else happened, for the log. */
  reason?: string;
}

/** What deciding needs. */
export interface GroupAccessParts {
  policy(platform: string): GroupPolicy;
  /** The platform's allowlists (empty sets when none). */
  lists(platform: string): { chats: ReadonlySet<string>; users: ReadonlySet<string> } | undefined;
  groups: GroupBook;
  now(): number;
}

/** Decides a group message of someone who is not an admin. */
export async function checkGroupMessage(message: InboundMessage, parts: GroupAccessParts): Promise<GroupDecision> {
  const { platform, conversationId } = message.address;
  const list = parts.lists(platform);
  if (list && list.users.size > 0 && !list.users.has(message.sender.id)) return { allowed: false };
  const policy = parts.policy(platform);
  if (list?.chats.has(conversationId)) return { allowed: true, admin: false };
  if (policy === 'open') return list && list.chats.size > 0 ? { allowed: false } : { allowed: true, admin: false };
  const group = groupOf(message);
  if (await parts.groups.isApproved(group)) return { allowed: true, admin: false };
  if (policy === 'allowlist') return { allowed: false, reason: 'group not approved (groupPolicy allowlist)' };
  // Only what is addressed to the bot asks for a code: the rest of a group's talk is not for it.
  if (!message.mentioned && !message.command) return { allowed: false, reason: 'group not approved' };
  if (message.sender.isBot) return { allowed: false, reason: 'group not approved (a bot asked)' };
  return offerCode(group, message.address, { platform, userId: message.sender.id, name: message.sender.name, username: message.sender.username }, parts);
}

/**
 * The bot joined a group: approved at once when `byAdmin` (an admin added it), or when the group
 * took the place of an approved one (`movedFrom`); otherwise, under `approval`, a group not yet
 * approved gets its pairing code now (as at a first mention).
 */
export async function joinGroup(join: GroupJoin, byAdmin: boolean, parts: GroupAccessParts): Promise<GroupJoinOutcome> {
  const { platform, conversationId } = join.address;
  const group: PairingGroup = { platform, ...join.group };
  if (join.movedFrom) {
    // The platform moved the group (never a person's say): its approval, if any, goes with it.
    const approved = await parts.groups.carryOver({ platform, ...join.movedFrom }, group);
    return approved ? { approved } : { reason: 'moved from a group that was not approved' };
  }
  if (byAdmin) {
    if (await parts.groups.isApproved(group)) return { reason: 'already approved' };
    return { approved: await parts.groups.admit(group, `${platform}:${join.by!.id}`) };
  }
  const policy = parts.policy(platform);
  if (policy === 'open' || parts.lists(platform)?.chats.has(conversationId)) return { reason: `served without approval (groupPolicy ${policy})` };
  if (await parts.groups.isApproved(group)) return { reason: 'already approved' };
  if (policy === 'allowlist') return { reason: 'not added by an admin (groupPolicy allowlist: no code)' };
  if (join.by?.isBot) return { reason: 'added by a bot' };
  const asker = join.by && { platform, userId: join.by.id, name: join.by.name, username: join.by.username };
  const decision = await offerCode(group, join.address, asker, parts);
  return decision.allowed ? {} : { ...(decision.reply !== undefined && { reply: decision.reply, pairingCode: decision.pairingCode }), ...(decision.reason !== undefined && { reason: decision.reason }) };
}

/** The group's code told once: a new code is a reply, one told already (or none to give) is silence. */
async function offerCode(group: PairingGroup, address: InboundMessage['address'], asker: GroupAsker | undefined, parts: GroupAccessParts): Promise<GroupDecision> {
  if ((await parts.groups.deniedUntil(group)) !== undefined) return { allowed: false, reason: 'group declined by an admin' };
  const outcome = await parts.groups.request(group, address, asker);
  if ('limited' in outcome) return { allowed: false, reason: `group not approved; no new pairing code: ${outcome.limited}` };
  if (!outcome.fresh) return { allowed: false, reason: 'group waiting for approval (its code was told)' };
  return { allowed: false, reply: groupCodeReply(outcome.request, parts.now()), pairingCode: outcome.request.code, reason: 'group not approved: pairing code told' };
}

/** What a group is told with its code. */
function groupCodeReply(request: GroupRequest, now: number): string {
  const lifetime = describeDuration(Math.max(1, Math.ceil((request.expiresAt - now) / 60_000)) * 60);
  return [
    "Hi! No admin of this bot has approved this group yet, so I don't answer here. To let me, an admin sends me this pairing code in a direct message:",
    '',
    `/pair ${request.code}`,
    '',
    `(or runs operator pairing approve ${request.code}). The code is valid for ${lifetime}; until then I stay quiet here.`,
  ].join('\n');
}
