/**
 * The pairing book: codes handed to unknown people, the people an admin approved or turned down,
 * and the owner made by pairing; and, through its {@link GroupBook}, the same for groups; all in the store (see `pairing-keys.ts`), so they survive
 * restarts and `operator pairing` can change them while the gateway runs. Nothing is cached: the
 * store is read on every check, so a revocation from another process takes effect at once.
 */
import type { ConversationAddress } from '../../channels/types.ts';
import { AgentError } from '../../core/errors.ts';
import type { Store } from '../../store/store.ts';
import { expiredGraceSeconds, GroupBook, isGroupRequest, type ApprovedGroup, type DeniedGroup, type GroupBookOptions, type GroupListing, type GroupRequest } from './group-book.ts';
import { generatePairingCode, normalizePairingCode, pairingCodeLength } from './pairing-code.ts';
import { describeGroup } from './pairing-group.ts';
import { approvedKey, approvedPrefix, codeKey, codePrefix, deniedKey, deniedPrefix, noticeKey, ownerKey, personKey } from './pairing-keys.ts';
import { newPairingNotice, noticeTtlSeconds } from './pairing-notice.ts';

/** Someone who asked to talk to the bot. */
export interface PairingPerson {
  platform: string;
  userId: string;
  name?: string;
  username?: string;
}

/** A code handed out and not yet approved. */
export interface PairingRequest extends PairingPerson {
  code: string;
  /** Milliseconds since the epoch. */
  createdAt: number;
  expiresAt: number;
  /** The direct conversation the code was asked in: where the approval is told. */
  address?: ConversationAddress;
}

/** A person an admin approved. */
export interface PairedPerson extends PairingPerson {
  code: string;
  approvedAt: number;
}

/** A person an admin turned down: refused until `until`, then they may ask for a new code. */
export interface DeniedPerson extends PairingPerson {
  code: string;
  deniedAt: number;
  until: number;
}

/** Everything the book holds, for `operator pairing list`. */
export interface PairingListing {
  /** Valid codes, oldest first. */
  pending: PairingRequest[];
  /** Approved people, oldest first. */
  approved: PairedPerson[];
  /** People turned down and still refused, oldest first. */
  denied: DeniedPerson[];
  /** The owner made by pairing, if any. */
  owner: PairedPerson | undefined;
  /** Groups waiting with a code, approved, and turned down. */
  groups: GroupListing;
}

/** A pairing request that cannot be carried out (a malformed, unknown or expired code; an owner already there). */
export class PairingError extends AgentError {
  constructor(message: string) {
    super(message, { category: 'PERMISSION', retryable: false });
  }
}

/** Options of {@link PairingBook} (the limits on waiting groups are its {@link GroupBook}'s). */
export interface PairingBookOptions extends GroupBookOptions {
  /** The clock, in milliseconds since the epoch (default `Date.now`). */
  now?: () => number;
  /** How long a code is valid, in seconds (default 3,600). */
  codeTtlSeconds?: number;
  /** How long a person (or group) turned down is refused, in seconds (default 86,400: a day). */
  denialSeconds?: number;
}

/** Pairing requests, approvals, refusals and the owner over a {@link Store}. */
export class PairingBook {
  private readonly now: () => number;
  private readonly codeTtlSeconds: number;
  private readonly denialSeconds: number;
  /** The groups: their codes, approvals and refusals. */
  readonly groups: GroupBook;

  constructor(
    private readonly store: Store,
    options: PairingBookOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.codeTtlSeconds = options.codeTtlSeconds ?? 3_600;
    this.denialSeconds = options.denialSeconds ?? 86_400;
    this.groups = new GroupBook(store, options);
  }

  /** Whether an admin approved this person (and did not revoke it). */
  async isApproved(platform: string, userId: string): Promise<boolean> {
    return (await this.store.get(approvedKey(platform, userId))) !== null;
  }

  /** Until when (milliseconds since the epoch) this person is refused, or `undefined` when they are not. */
  async deniedUntil(platform: string, userId: string): Promise<number | undefined> {
    const denied = await this.store.get<DeniedPerson>(deniedKey(platform, userId));
    return denied && denied.until > this.now() ? denied.until : undefined;
  }

  /** The owner made by pairing, or `undefined`. */
  async owner(): Promise<PairedPerson | undefined> {
    return (await this.store.get<PairedPerson>(ownerKey)) ?? undefined;
  }

  /** The person's valid code, or a new one (valid `codeTtlSeconds`); `address` is where they asked. */
  async request(person: PairingPerson, address?: ConversationAddress): Promise<PairingRequest> {
    const key = personKey(person.platform, person.userId);
    return this.store.withLock(key, async () => {
      const current = await this.store.get<string>(key);
      const existing = current === null ? null : await this.store.get<PairingRequest>(codeKey(current));
      if (existing && existing.expiresAt > this.now()) return existing;
      const createdAt = this.now();
      const base = { platform: person.platform, userId: person.userId, name: person.name, username: person.username, address };
      for (;;) {
        const request: PairingRequest = { ...base, code: generatePairingCode(), createdAt, expiresAt: createdAt + this.codeTtlSeconds * 1000 };
        // 2^40 codes: a collision is rare, and then the next code is taken.
        if (!(await this.store.setIfAbsent(codeKey(request.code), request, { ttlSeconds: this.codeTtlSeconds + expiredGraceSeconds }))) continue;
        await this.store.set(key, request.code, { ttlSeconds: this.codeTtlSeconds });
        return request;
      }
    });
  }

  /**
   * Approves the person (or group) who got `code` (case, spaces and dashes do not matter) and
   * leaves a notice for the gateway to tell them. With `owner`, the person also becomes the bot's
   * owner, unless there is one already. Whether the configuration has admins is the caller's to check.
   *
   * @throws PairingError when the code is malformed, unknown or expired, or `owner` is asked and
   * the book has an owner already, or the code is a group's (then nothing changes).
   */
  async approve(code: string, options: { owner?: boolean } = {}): Promise<PairedPerson | ApprovedGroup> {
    return this.withRequest(code, async (request) => {
      if (isGroupRequest(request)) {
        if (request.expiresAt <= this.now()) {
          throw new PairingError(`Pairing code ${request.code} of ${describeGroup(request.group)} has expired (codes are valid for ${describeDuration(this.codeTtlSeconds)}); a new one is given at the next mention of the bot there`);
        }
        if (options.owner) throw new PairingError(`Pairing code ${request.code} is a group's (${describeGroup(request.group)}): a group cannot be the owner`);
        return this.groups.approveRequest(request);
      }
      if (request.expiresAt <= this.now()) {
        throw new PairingError(`Pairing code ${request.code} has expired (codes are valid for ${describeDuration(this.codeTtlSeconds)}); ask the person to write to the bot again for a new one`);
      }
      const { createdAt: _created, expiresAt: _expires, address, ...person } = request;
      const approved: PairedPerson = { ...person, approvedAt: this.now() };
      if (options.owner && !(await this.store.setIfAbsent(ownerKey, approved))) {
        const owner = await this.owner();
        throw new PairingError(`This bot already has an owner${owner ? ` (${owner.platform}:${owner.userId})` : ''}; add more admins to admins in operator.json (or OPERATOR_ADMINS)`);
      }
      // The notice first: the gateway sends it only once the approval is there too, so a notice
      // never tells of an approval that was not made.
      if (address) await this.store.set(noticeKey(request.platform, request.userId), newPairingNotice(request, address, this.now()), { ttlSeconds: noticeTtlSeconds });
      await this.store.set(approvedKey(request.platform, request.userId), approved);
      await this.store.delete(deniedKey(request.platform, request.userId));
      await this.store.delete(codeKey(request.code));
      return approved;
    });
  }

  /**
   * Turns down the person who got `code`: the code is dropped, and the person is refused (told
   * so) for `denialSeconds`; after that, writing again gets them a new code. An expired code can
   * be turned down too.
   *
   * @throws PairingError when the code is malformed or unknown.
   */
  async deny(code: string): Promise<DeniedPerson | DeniedGroup> {
    return this.withRequest(code, async (request) => {
      if (isGroupRequest(request)) return this.groups.denyRequest(request);
      const deniedAt = this.now();
      const denied: DeniedPerson = { platform: request.platform, userId: request.userId, name: request.name, username: request.username, code: request.code, deniedAt, until: deniedAt + this.denialSeconds * 1000 };
      await this.store.set(deniedKey(request.platform, request.userId), denied, { ttlSeconds: this.denialSeconds });
      await this.store.delete(codeKey(request.code));
      return denied;
    });
  }

  /**
   * Takes back a person's approval (and their being the owner, when they are): their next direct
   * message is a stranger's. An approval not yet told is not told.
   *
   * @returns who was revoked, and whether they were the owner.
   * @throws PairingError when the person is neither approved nor the owner.
   */
  async revoke(platform: string, userId: string): Promise<{ person: PairedPerson; owner: boolean }> {
    const approved = await this.store.get<PairedPerson>(approvedKey(platform, userId));
    const owner = await this.owner();
    const isOwner = owner?.platform === platform && owner.userId === userId;
    const person = approved ?? (isOwner ? owner : undefined);
    if (!person) throw new PairingError(`${platform}:${userId} is not paired (operator pairing list shows who is)`);
    await this.store.delete(noticeKey(platform, userId));
    if (isOwner) await this.store.delete(ownerKey);
    await this.store.delete(approvedKey(platform, userId));
    return { person, owner: isOwner };
  }

  /** Valid codes waiting for approval, approved people, people still refused (each oldest first), and the owner. */
  async list(): Promise<PairingListing> {
    const now = this.now();
    const pending = (await this.values<PairingRequest | GroupRequest>(codePrefix)).filter((request): request is PairingRequest => !isGroupRequest(request) && request.expiresAt > now);
    const approved = await this.values<PairedPerson>(approvedPrefix);
    const denied = (await this.values<DeniedPerson>(deniedPrefix)).filter((person) => person.until > now);
    return {
      pending: pending.sort((a, b) => a.createdAt - b.createdAt || a.code.localeCompare(b.code)),
      approved: approved.sort((a, b) => a.approvedAt - b.approvedAt || a.code.localeCompare(b.code)),
      denied: denied.sort((a, b) => a.deniedAt - b.deniedAt || a.code.localeCompare(b.code)),
      owner: await this.owner(),
      groups: await this.groups.list(),
    };
  }

  /** Runs `fn` on the request of `code`, under the code's lock. */
  private async withRequest<T>(code: string, fn: (request: PairingRequest | GroupRequest) => Promise<T>): Promise<T> {
    const normalized = normalizePairingCode(code);
    if (!normalized) {
      throw new PairingError(`Not a pairing code: codes are ${pairingCodeLength} letters and digits without 0, O, 1 or I (e.g. K7QM2XPA)`);
    }
    return this.store.withLock(codeKey(normalized), async () => {
      const request = await this.store.get<PairingRequest | GroupRequest>(codeKey(normalized));
      if (!request) throw new PairingError(`Unknown pairing code ${normalized}: check it, or ask the person to write to the bot again for a new one`);
      return fn(request);
    });
  }

  private async values<T>(prefix: string): Promise<T[]> {
    const values = await Promise.all((await this.store.list(prefix)).map((key) => this.store.get<T>(key)));
    return values.filter((value): value is Awaited<T> & {} => value !== null) as T[];
  }
}

/** `1 hour`, `30 minutes`, `90 seconds`. */
export function describeDuration(seconds: number): string {
  if (seconds % 3_600 === 0) return seconds === 3_600 ? '1 hour' : `${seconds / 3_600} hours`;
  if (seconds % 60 === 0) return seconds === 60 ? '1 minute' : `${seconds / 60} minutes`;
  return `${seconds} seconds`;
}
