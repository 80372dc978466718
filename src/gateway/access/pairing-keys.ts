/**
 * Where pairing lives in the store. The gateway and `operator pairing` (another process) share
 * these keys and nothing else, so this file is the whole contract between them:
 *
 * - `pairing:code:<CODE>`: a code handed out, waiting for an admin (a `PairingRequest`);
 * - `pairing:person:<platform>:<user>`: that person's current code, so asking again within the
 *   hour gives the same one;
 * - `pairing:approved:<platform>:<user>`: a person an admin approved (a `PairedPerson`);
 * - `pairing:denied:<platform>:<user>`: a person an admin turned down, for a while;
 * - `pairing:owner`: the owner made by `operator pairing approve CODE --owner`, an admin besides
 *   the configured ones;
 * - `pairing:notice:<platform>:<user>`: an approval the person has not been told of yet; the
 *   running gateway tells them and removes it (see `pairing-notifier.ts`).
 *
 * Groups (see `pairing-group.ts`) have their own, `<group>` being `<platform>:<kind>:<id>`:
 *
 * - `pairing:code:<CODE>` holds a group's code too (a `GroupRequest`, which names its `group`);
 * - `pairing:group:code:<group>`: the group's current code;
 * - `pairing:group:approved:<group>`, `pairing:group:denied:<group>`: an admin's yes or no;
 * - `pairing:notice:group:<group>`: an approval the group has not been told of yet;
 * - `pairing:group:requests`: the lock under which a new group code is counted against the limits.
 */
import { keySegment } from '../dedupe.ts';
import type { PairingGroup } from './pairing-group.ts';

/** The prefix of every code waiting for approval. */
export const codePrefix = 'pairing:code:';
/** The prefix of every approved person. */
export const approvedPrefix = 'pairing:approved:';
/** The prefix of every person turned down. */
export const deniedPrefix = 'pairing:denied:';
/** The prefix of every approval not yet told. */
export const noticePrefix = 'pairing:notice:';
/** The owner made by pairing (one at most). */
export const ownerKey = 'pairing:owner';

/** The request of `code` (already normalised). */
export function codeKey(code: string): string {
  return `${codePrefix}${code}`;
}

/** The current code of a person. */
export function personKey(platform: string, userId: string): string {
  return `pairing:person:${keySegment(platform)}:${keySegment(userId)}`;
}

/** The approval of a person. */
export function approvedKey(platform: string, userId: string): string {
  return `${approvedPrefix}${keySegment(platform)}:${keySegment(userId)}`;
}

/** The refusal of a person. */
export function deniedKey(platform: string, userId: string): string {
  return `${deniedPrefix}${keySegment(platform)}:${keySegment(userId)}`;
}

/** The untold approval of a person. */
export function noticeKey(platform: string, userId: string): string {
  return `${noticePrefix}${keySegment(platform)}:${keySegment(userId)}`;
}

/** The prefix of every approved group. */
export const approvedGroupPrefix = 'pairing:group:approved:';
/** The prefix of every group turned down. */
export const deniedGroupPrefix = 'pairing:group:denied:';
/** The lock under which a new group code is counted against the limits. */
export const groupRequestsLock = 'pairing:group:requests';

function groupSegments(group: Pick<PairingGroup, 'platform' | 'kind' | 'id'>): string {
  return `${keySegment(group.platform)}:${keySegment(group.kind)}:${keySegment(group.id)}`;
}

/** The current code of a group. */
export function groupCodeKey(group: Pick<PairingGroup, 'platform' | 'kind' | 'id'>): string {
  return `pairing:group:code:${groupSegments(group)}`;
}

/** The approval of a group. */
export function approvedGroupKey(group: Pick<PairingGroup, 'platform' | 'kind' | 'id'>): string {
  return `${approvedGroupPrefix}${groupSegments(group)}`;
}

/** The refusal of a group. */
export function deniedGroupKey(group: Pick<PairingGroup, 'platform' | 'kind' | 'id'>): string {
  return `${deniedGroupPrefix}${groupSegments(group)}`;
}

/** The untold approval of a group (under {@link noticePrefix}, so one sweep finds both kinds). */
export function groupNoticeKey(group: Pick<PairingGroup, 'platform' | 'kind' | 'id'>): string {
  return `${noticePrefix}group:${groupSegments(group)}`;
}
