/**
 * An approval the person has not been told of yet. Approving writes one to the store (whichever
 * process approves); the running gateway sends it and removes it (see `pairing-notifier.ts`). Kept
 * in the store rather than sent by the approver, so an approval made while the gateway is down is
 * told when it starts, and one made by `operator pairing` (which has no channel) is told at all.
 */
import type { ConversationAddress } from '../../channels/types.ts';
import type { PairingGroup } from './pairing-group.ts';

/** An untold approval: of a person, or of a group (`group` set, no `userId`). */
export interface PairingNotice {
  platform: string;
  /** The person approved (absent for a group's notice). */
  userId?: string;
  /** The group approved (a group's notice). */
  group?: PairingGroup;
  /** Where the code was asked for: the person's direct conversation, or the group. */
  address: ConversationAddress;
  /** Milliseconds since the epoch. */
  createdAt: number;
  /** When it is given up on (the store's TTL drops it then too). */
  expiresAt: number;
  /** Sends that failed so far. */
  attempts: number;
  /** No send before this time (backing off after a failure). */
  retryAt?: number;
  /**
   * Set just before the send, removed with the notice after it. Found set by a later sweep, it
   * means the process stopped mid-send: whether the person got it is unknown, so it is not sent
   * again (a notice is sent once at most).
   */
  claimedAt?: number;
}

/** How long an untold approval waits for a gateway with the person's channel: 7 days. */
export const noticeTtlSeconds = 7 * 86_400;

/** A new untold approval for the person at `address`, made at `now`. */
export function newPairingNotice(person: { platform: string; userId: string }, address: ConversationAddress, now: number): PairingNotice {
  return { platform: person.platform, userId: person.userId, address, createdAt: now, expiresAt: now + noticeTtlSeconds * 1000, attempts: 0 };
}

/** A new untold approval of `group`, told at `address` (where its code was given). */
export function newGroupNotice(group: PairingGroup, address: ConversationAddress, now: number): PairingNotice {
  return { platform: group.platform, group, address, createdAt: now, expiresAt: now + noticeTtlSeconds * 1000, attempts: 0 };
}

/** What a group is told when an admin approves its code. */
export const groupNoticeText = 'An admin approved this group, so I can answer here now.';

/** What the person is told; `owner` when the approval made them the bot's owner. */
export function pairingNoticeText(owner: boolean): string {
  const text = 'You can talk to me now: an admin approved your pairing code.';
  return owner ? `${text} You are my owner, so admin commands such as /pair are yours too.` : text;
}
