/**
 * What the gateway does when a platform says the bot was added to a group: the access policy
 * decides (an admin added it: the group is approved at once; anyone else: the group's pairing
 * code, told there once, under `groupPolicy: approval`), and the code goes out in the group. A
 * group the platform moved keeps its approval, its conversation (`moved-conversation.ts`) and what
 * was set for it: scheduled jobs, tools granted there, its profile (`moved-chat.ts`).
 */
import { NotAcceptedError, type ChannelAdapter, type GroupJoin } from '../../channels/types.ts';
import { errorMessage } from '../../core/errors.ts';
import type { OpsEvents } from '../ops/ops-events.ts';
import { isStoreFailure } from '../store-failure.ts';
import type { AccessPolicy } from './access-policy.ts';
import { describeMovedChat, moveChat, type MovedChatParts } from './moved-chat.ts';
import { carryConversation, type MovedConversationParts } from './moved-conversation.ts';
import { groupLabel } from './pairing-group.ts';

/** What handling a join needs. */
export interface GroupJoinParts {
  access: Pick<AccessPolicy, 'groupJoined'>;
  ops: OpsEvents;
  /** Where a moved group's conversation goes on (`GroupJoin.movedFromSessionKey`); unset: it starts afresh. */
  conversations?: MovedConversationParts;
  /** Where a moved group's jobs, grants and profile go along (`GroupJoin.movedFrom`); unset: they stay. */
  moved?: MovedChatParts;
  log(line: string): void;
}

/**
 * Handles `join` from `adapter`'s platform. Rejects with {@link NotAcceptedError} when the store
 * failed (the platform may deliver it again: approving twice, or asking twice for the group's
 * one code, changes nothing); other failures are logged.
 */
export async function handleGroupJoin(parts: GroupJoinParts, adapter: Pick<ChannelAdapter, 'send'>, join: GroupJoin): Promise<void> {
  const platform = join.address.platform;
  const label = groupLabel({ platform, ...join.group });
  let outcome;
  try {
    outcome = await parts.access.groupJoined(join);
  } catch (error) {
    if (isStoreFailure(error)) throw new NotAcceptedError(`${label}: the bot's joining not taken (store: ${errorMessage(error)})`);
    parts.log(`${label}: the bot's joining not handled: ${errorMessage(error)}`);
    return;
  }
  // The platform moved the group: its conversation goes on in the new one, approved or not.
  if (join.movedFromSessionKey !== undefined && parts.conversations) {
    const carried = await carryConversation(parts.conversations, join.movedFromSessionKey, join.sessionKey).catch((error: unknown) => {
      if (isStoreFailure(error)) throw new NotAcceptedError(`${label}: the moved group's conversation not carried over (store: ${errorMessage(error)})`);
      parts.log(`${label}: the moved group's conversation not carried over: ${errorMessage(error)}`);
      return false;
    });
    if (carried) parts.log(`${label}: the conversation of ${join.movedFromSessionKey} goes on here (the group moved)`);
  }
  if (join.movedFrom && parts.moved) {
    const to = { conversationId: join.address.conversationId, sessionKey: join.sessionKey };
    const moved = await moveChat(parts.moved, platform, join.movedFrom.id, to).catch((error: unknown) => {
      if (isStoreFailure(error)) throw new NotAcceptedError(`${label}: what was set for the moved group not carried over (store: ${errorMessage(error)})`);
      parts.log(`${label}: what was set for the moved group not carried over: ${errorMessage(error)}`);
      return undefined;
    });
    const what = moved && describeMovedChat(moved);
    if (what) parts.log(`${label}: moved here from ${groupLabel({ platform, ...join.movedFrom })}: ${what}`);
  }
  const place = { platform, conversation: join.sessionKey };
  const by = join.by ? `${platform}:${join.by.id}` : 'unknown (the platform does not say)';
  const approved = outcome.approved;
  if (approved) parts.ops.emit({ type: 'group.approved', ...place, group: label, by: approved.movedFrom ? `moved from ${approved.movedFrom}, which was approved` : `${by}, an admin, added the bot` });
  if (outcome.reply === undefined) return;
  parts.ops.emit({ type: 'pairing.requested', ...place, user: by, code: outcome.pairingCode ?? '', group: label });
  await adapter.send(join.address, { text: outcome.reply }).catch((error: unknown) => parts.log(`${platform}: could not send: ${errorMessage(error)}`));
}
