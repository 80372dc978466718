/**
 * The groups half of the pairing book: the codes handed to groups no admin has approved, the
 * groups an admin approved (by a code, or by adding the bot there themselves) or turned down, all
 * in the store (see `pairing-keys.ts`), so `operator pairing` sees and changes them while the
 * gateway runs. A group's code shares the codes' namespace with people's, so an admin approves
 * either with the one `approve CODE`.
 *
 * A group has one code at a time, told once; a new one only after it expires. New codes are
 * limited, so strangers cannot fill the list: at most {@link GroupBookOptions.maxWaiting} groups
 * wait at once, at most {@link GroupBookOptions.maxWaitingPerPerson} of them asked by one person.
 */
import type { ConversationAddress } from '../../channels/types.ts';
import type { Store } from '../../store/store.ts';
import { generatePairingCode } from './pairing-code.ts';
import { describeGroup, groupLabel, sameGroup, type PairingGroup } from './pairing-group.ts';
import { approvedGroupKey, approvedGroupPrefix, codeKey, codePrefix, deniedGroupKey, deniedGroupPrefix, groupCodeKey, groupNoticeKey, groupRequestsLock } from './pairing-keys.ts';
import { newGroupNotice, noticeTtlSeconds } from './pairing-notice.ts';

/** Who asked, for the list: the person who mentioned the bot (or added it). */
export interface GroupAsker {
  platform: string;
  userId: string;
  name?: string;
  username?: string;
}

/** A code handed to a group and not yet approved. */
export interface GroupRequest {
  group: PairingGroup;
  code: string;
  /** Milliseconds since the epoch. */
  createdAt: number;
  expiresAt: number;
  /** The conversation the code was told in: where the approval is told. */
  address: ConversationAddress;
  askedBy?: GroupAsker;
}

/** A group an admin approved. */
export interface ApprovedGroup {
  group: PairingGroup;
  approvedAt: number;
  /** The code approved; absent when an admin added the bot there (`addedBy`). */
  code?: string;
  /** The admin (`platform:userId`) who added the bot to the group, which approved it. */
  addedBy?: string;
  /** The approved group this one replaced (`telegram:group:-4001`: a group upgraded to a supergroup). */
  movedFrom?: string;
  askedBy?: GroupAsker;
}

/** A group an admin turned down: refused until `until`, then a mention there gets a new code. */
export interface DeniedGroup {
  group: PairingGroup;
  code: string;
  deniedAt: number;
  until: number;
}

/** The groups the book holds, each list oldest first. */
export interface GroupListing {
  pending: GroupRequest[];
  approved: ApprovedGroup[];
  denied: DeniedGroup[];
}

/** What asking for a group's code gives: the code (and whether it is new), or why there is none. */
export type GroupCodeOutcome = { request: GroupRequest; fresh: boolean } | { limited: string };

/** Options of {@link GroupBook}. */
export interface GroupBookOptions {
  now?: () => number;
  /** How long a code is valid, in seconds (default 3,600). */
  codeTtlSeconds?: number;
  /** How long a group turned down is refused, in seconds (default 86,400). */
  denialSeconds?: number;
  /** Groups waiting with a valid code at most (default 20). */
  maxWaiting?: number;
  /** Of those, asked by one person at most (default 3). */
  maxWaitingPerPerson?: number;
}

/** An expired code is kept this much longer, so approving it says "expired", not "unknown". */
export const expiredGraceSeconds = 86_400;

/** Group requests, approvals and refusals over a {@link Store}. */
export class GroupBook {
  private readonly now: () => number;
  private readonly codeTtlSeconds: number;
  private readonly denialSeconds: number;
  private readonly maxWaiting: number;
  private readonly maxWaitingPerPerson: number;

  constructor(
    private readonly store: Store,
    options: GroupBookOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.codeTtlSeconds = options.codeTtlSeconds ?? 3_600;
    this.denialSeconds = options.denialSeconds ?? 86_400;
    this.maxWaiting = options.maxWaiting ?? 20;
    this.maxWaitingPerPerson = options.maxWaitingPerPerson ?? 3;
  }

  /** Whether an admin approved the group (and did not revoke it). */
  async isApproved(group: PairingGroup): Promise<boolean> {
    return (await this.store.get(approvedGroupKey(group))) !== null;
  }

  /** Until when the group is refused, or `undefined` when it is not. */
  async deniedUntil(group: PairingGroup): Promise<number | undefined> {
    const denied = await this.store.get<DeniedGroup>(deniedGroupKey(group));
    return denied && denied.until > this.now() ? denied.until : undefined;
  }

  /**
   * The group's valid code (`fresh: false`: it was told already), or a new one, told at `address`,
   * unless the limits on waiting groups say no.
   */
  async request(group: PairingGroup, address: ConversationAddress, askedBy?: GroupAsker): Promise<GroupCodeOutcome> {
    const current = await this.validRequest(group);
    if (current) return { request: current, fresh: false };
    return this.store.withLock(groupRequestsLock, async () => {
      // Looked at again under the lock: another message of the group may have made it meanwhile.
      const made = await this.validRequest(group);
      if (made) return { request: made, fresh: false };
      const waiting = (await this.pendingRequests()).filter((request) => !sameGroup(request.group, group));
      if (waiting.length >= this.maxWaiting) return { limited: `${waiting.length} groups are waiting for approval already (at most ${this.maxWaiting})` };
      const asked = askedBy && waiting.filter((request) => request.askedBy?.platform === askedBy.platform && request.askedBy.userId === askedBy.userId).length;
      if (asked !== undefined && asked >= this.maxWaitingPerPerson) return { limited: `${askedBy!.platform}:${askedBy!.userId} asked for ${asked} groups already (at most ${this.maxWaitingPerPerson} at once)` };
      const createdAt = this.now();
      for (;;) {
        const request: GroupRequest = { group, code: generatePairingCode(), createdAt, expiresAt: createdAt + this.codeTtlSeconds * 1000, address, ...(askedBy && { askedBy }) };
        // 2^40 codes: a collision is rare, and then the next code is taken.
        if (!(await this.store.setIfAbsent(codeKey(request.code), request, { ttlSeconds: this.codeTtlSeconds + expiredGraceSeconds }))) continue;
        await this.store.set(groupCodeKey(group), request.code, { ttlSeconds: this.codeTtlSeconds });
        return { request, fresh: true };
      }
    });
  }

  /**
   * Approves the group at once: an admin (`addedBy`, `platform:userId`) added the bot there. A code
   * the group was waiting with is dropped; nothing is told (the admin knows).
   */
  async admit(group: PairingGroup, addedBy: string): Promise<ApprovedGroup> {
    const approved: ApprovedGroup = { group, approvedAt: this.now(), addedBy };
    await this.store.set(approvedGroupKey(group), approved);
    await this.store.delete(deniedGroupKey(group));
    const code = await this.store.get<string>(groupCodeKey(group));
    if (code !== null) {
      await this.store.delete(codeKey(code));
      await this.store.delete(groupCodeKey(group));
    }
    return approved;
  }

  /**
   * Carries the approval of group `from` over to `to`, which took its place (the platform said so):
   * the approval of `to`, or `undefined` when `from` was not approved (nothing changes).
   */
  async carryOver(from: PairingGroup, to: PairingGroup): Promise<ApprovedGroup | undefined> {
    const old = await this.store.get<ApprovedGroup>(approvedGroupKey(from));
    if (!old) return undefined;
    const { group: _old, approvedAt: _at, movedFrom: _from, ...how } = old;
    const approved: ApprovedGroup = { ...how, group: to, approvedAt: this.now(), movedFrom: groupLabel(from) };
    await this.store.set(approvedGroupKey(to), approved);
    return approved;
  }

  /**
   * Approves the group of `request` (called under its code's lock, the code valid) and leaves a
   * notice for the gateway to tell the group.
   */
  async approveRequest(request: GroupRequest): Promise<ApprovedGroup> {
    const approved: ApprovedGroup = { group: request.group, approvedAt: this.now(), code: request.code, ...(request.askedBy && { askedBy: request.askedBy }) };
    // The notice first: the gateway sends it only once the approval is there too.
    await this.store.set(groupNoticeKey(request.group), newGroupNotice(request.group, request.address, this.now()), { ttlSeconds: noticeTtlSeconds });
    await this.store.set(approvedGroupKey(request.group), approved);
    await this.store.delete(deniedGroupKey(request.group));
    await this.store.delete(codeKey(request.code));
    await this.store.delete(groupCodeKey(request.group));
    return approved;
  }

  /** Turns the group of `request` down for `denialSeconds` (called under its code's lock). */
  async denyRequest(request: GroupRequest): Promise<DeniedGroup> {
    const deniedAt = this.now();
    const denied: DeniedGroup = { group: request.group, code: request.code, deniedAt, until: deniedAt + this.denialSeconds * 1000 };
    await this.store.set(deniedGroupKey(request.group), denied, { ttlSeconds: this.denialSeconds });
    await this.store.delete(codeKey(request.code));
    await this.store.delete(groupCodeKey(request.group));
    return denied;
  }

  /**
   * Takes back a group's approval: its next mention is a stranger group's again. An approval not
   * yet told is not told.
   *
   * @returns the approval taken back, or `undefined` when the group was not approved.
   */
  async revoke(group: PairingGroup): Promise<ApprovedGroup | undefined> {
    const approved = await this.store.get<ApprovedGroup>(approvedGroupKey(group));
    if (!approved) return undefined;
    await this.store.delete(groupNoticeKey(group));
    await this.store.delete(approvedGroupKey(group));
    return approved;
  }

  /** Valid group codes, approved groups and groups still refused, each oldest first. */
  async list(): Promise<GroupListing> {
    const now = this.now();
    const pending = await this.pendingRequests();
    const approved = await this.values<ApprovedGroup>(approvedGroupPrefix);
    const denied = (await this.values<DeniedGroup>(deniedGroupPrefix)).filter((group) => group.until > now);
    return {
      pending: pending.sort((a, b) => a.createdAt - b.createdAt || a.code.localeCompare(b.code)),
      approved: approved.sort((a, b) => a.approvedAt - b.approvedAt || describeGroup(a.group).localeCompare(describeGroup(b.group))),
      denied: denied.sort((a, b) => a.deniedAt - b.deniedAt || a.code.localeCompare(b.code)),
    };
  }

  /** The group's code if it has one still valid. */
  private async validRequest(group: PairingGroup): Promise<GroupRequest | undefined> {
    const code = await this.store.get<string>(groupCodeKey(group));
    const request = code === null ? null : await this.store.get<GroupRequest>(codeKey(code));
    return request && isGroupRequest(request) && request.expiresAt > this.now() ? request : undefined;
  }

  /** Every group code still valid. */
  private async pendingRequests(): Promise<GroupRequest[]> {
    const now = this.now();
    return (await this.values<GroupRequest | object>(codePrefix)).filter((request): request is GroupRequest => isGroupRequest(request) && request.expiresAt > now);
  }

  private async values<T>(prefix: string): Promise<T[]> {
    const values = await Promise.all((await this.store.list(prefix)).map((key) => this.store.get<T>(key)));
    return values.filter((value): value is Awaited<T> & {} => value !== null) as T[];
  }
}

/** Whether a stored code is a group's (a person's has no `group`). */
export function isGroupRequest(request: object): request is GroupRequest {
  return 'group' in request;
}
