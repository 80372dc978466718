/**
 * The pairing book: codes handed to unknown people and the people an admin approved, all in the
 * store (so approvals survive restarts and the CLI can approve while the gateway runs).
 *
 * Keys: `pairing:code:<CODE>` (the request), `pairing:person:<platform>:<user>` (their current
 * code, so asking again within the hour gives the same one), `pairing:approved:<platform>:<user>`.
 */
import { AgentError } from '../../core/errors.ts';
import type { Store } from '../../store/store.ts';
import { keySegment } from '../dedupe.ts';
import { generatePairingCode, normalizePairingCode, pairingCodeLength } from './pairing-code.ts';

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
}

/** A person an admin approved. */
export interface PairedPerson extends PairingPerson {
  code: string;
  approvedAt: number;
}

/** A pairing code that cannot be approved (malformed, unknown or expired). */
export class PairingError extends AgentError {
  constructor(message: string) {
    super(message, { category: 'PERMISSION', retryable: false });
  }
}

/** Options of {@link PairingBook}. */
export interface PairingBookOptions {
  /** The clock, in milliseconds since the epoch (default `Date.now`). */
  now?: () => number;
  /** How long a code is valid, in seconds (default 3,600). */
  codeTtlSeconds?: number;
}

/** An expired code is kept this much longer, so approving it says "expired", not "unknown". */
const expiredGraceSeconds = 86_400;

/** Pairing requests and approvals over a {@link Store}. */
export class PairingBook {
  private readonly now: () => number;
  private readonly codeTtlSeconds: number;
  /** Approvals are never withdrawn, so a positive answer can be remembered. */
  private readonly approvedCache = new Set<string>();

  constructor(
    private readonly store: Store,
    options: PairingBookOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.codeTtlSeconds = options.codeTtlSeconds ?? 3_600;
  }

  /** Whether an admin approved this person. */
  async isApproved(platform: string, userId: string): Promise<boolean> {
    const key = this.approvedKey(platform, userId);
    if (this.approvedCache.has(key)) return true;
    const approved = (await this.store.get(key)) !== null;
    if (approved) this.approvedCache.add(key);
    return approved;
  }

  /** The person's valid code, or a new one (valid `codeTtlSeconds`). */
  async request(person: PairingPerson): Promise<PairingRequest> {
    const personKey = `pairing:person:${keySegment(person.platform)}:${keySegment(person.userId)}`;
    return this.store.withLock(personKey, async () => {
      const current = await this.store.get<string>(personKey);
      const existing = current === null ? null : await this.store.get<PairingRequest>(codeKey(current));
      if (existing && existing.expiresAt > this.now()) return existing;
      const createdAt = this.now();
      const base = { platform: person.platform, userId: person.userId, name: person.name, username: person.username };
      for (;;) {
        const request: PairingRequest = { ...base, code: generatePairingCode(), createdAt, expiresAt: createdAt + this.codeTtlSeconds * 1000 };
        // 2^40 codes: a collision is rare, and then the next code is taken.
        if (!(await this.store.setIfAbsent(codeKey(request.code), request, { ttlSeconds: this.codeTtlSeconds + expiredGraceSeconds }))) continue;
        await this.store.set(personKey, request.code, { ttlSeconds: this.codeTtlSeconds });
        return request;
      }
    });
  }

  /**
   * Approves the person who got `code` (case, spaces and dashes do not matter).
   *
   * @throws PairingError when the code is malformed, unknown or expired.
   */
  async approve(code: string): Promise<PairedPerson> {
    const normalized = normalizePairingCode(code);
    if (!normalized) {
      throw new PairingError(`Not a pairing code: codes are ${pairingCodeLength} letters and digits without 0, O, 1 or I (e.g. K7QM2XPA)`);
    }
    return this.store.withLock(codeKey(normalized), async () => {
      const request = await this.store.get<PairingRequest>(codeKey(normalized));
      if (!request) throw new PairingError(`Unknown pairing code ${normalized}: check it, or ask the person to write to the bot again for a new one`);
      if (request.expiresAt <= this.now()) {
        throw new PairingError(`Pairing code ${normalized} has expired (codes are valid for ${describeDuration(this.codeTtlSeconds)}); ask the person to write to the bot again for a new one`);
      }
      const { createdAt: _created, expiresAt: _expires, ...person } = request;
      const approved: PairedPerson = { ...person, approvedAt: this.now() };
      await this.store.set(this.approvedKey(request.platform, request.userId), approved);
      await this.store.delete(codeKey(normalized));
      return approved;
    });
  }

  /** Valid codes waiting for approval (oldest first) and approved people (oldest first). */
  async list(): Promise<{ pending: PairingRequest[]; approved: PairedPerson[] }> {
    const now = this.now();
    const pending = (await this.values<PairingRequest>('pairing:code:')).filter((request) => request.expiresAt > now);
    const approved = await this.values<PairedPerson>('pairing:approved:');
    return {
      pending: pending.sort((a, b) => a.createdAt - b.createdAt || a.code.localeCompare(b.code)),
      approved: approved.sort((a, b) => a.approvedAt - b.approvedAt || a.code.localeCompare(b.code)),
    };
  }

  private approvedKey(platform: string, userId: string): string {
    return `pairing:approved:${keySegment(platform)}:${keySegment(userId)}`;
  }

  private async values<T>(prefix: string): Promise<T[]> {
    const values = await Promise.all((await this.store.list(prefix)).map((key) => this.store.get<T>(key)));
    return values.filter((value): value is Awaited<T> & {} => value !== null) as T[];
  }
}

function codeKey(code: string): string {
  return `pairing:code:${code}`;
}

/** `1 hour`, `30 minutes`, `90 seconds`. */
export function describeDuration(seconds: number): string {
  if (seconds % 3_600 === 0) return seconds === 3_600 ? '1 hour' : `${seconds / 3_600} hours`;
  if (seconds % 60 === 0) return seconds === 60 ? '1 minute' : `${seconds / 60} minutes`;
  return `${seconds} seconds`;
}
