/**
 * Tells people an admin approved them, and groups an admin approved that the bot answers there
 * now. Approvals leave a notice in the store (see `pairing-notice.ts`), whichever process made
 * them; the gateway sweeps the notices every few seconds, at start and at once after an approval
 * it made itself (`/pair`), and sends each where the code was asked for: the person's direct
 * conversation, or the group.
 *
 * Once, never twice: a notice is marked as being sent before the send and removed after it, all
 * under its key's lock, and sweeps never overlap. A send that fails is tried again later (backing
 * off); a notice found still marked (the process stopped mid-send) is dropped with a log line, as
 * the person may have it already. Not lost: until sent it stays in the store, across restarts, for
 * up to {@link noticeTtlSeconds}; one for a platform whose channel is not running waits for a
 * gateway that runs it.
 */
import type { ChannelAdapter } from '../../channels/types.ts';
import { errorMessage } from '../../core/errors.ts';
import type { Store } from '../../store/store.ts';
import { PairingBook } from './pairing-book.ts';
import { groupLabel } from './pairing-group.ts';
import { noticePrefix } from './pairing-keys.ts';
import { groupNoticeText, pairingNoticeText, type PairingNotice } from './pairing-notice.ts';

/** Options of {@link PairingNotifier}. */
export interface PairingNotifierOptions {
  store: Store;
  /** The channels, by platform: a notice goes out through its platform's. */
  adapters: ReadonlyMap<string, Pick<ChannelAdapter, 'send'>>;
  /** Called at the start of every sweep: the access policy reads the owner made by pairing again. */
  refresh(): Promise<void>;
  log(line: string): void;
  /** Time between sweeps (default 3 s). */
  intervalMs?: number;
  /** The clock, in milliseconds since the epoch (default `Date.now`). */
  now?: () => number;
}

/** Tries per notice before it is given up on. */
const maxAttempts = 8;
/** A notice whose approval is missing this long was revoked or never finished: dropped. */
const orphanMs = 60_000;

/**
 * Sends the store's untold approvals.
 *
 * @example
 * const notifier = new PairingNotifier({ store, adapters, refresh: () => access.refresh(), log });
 * notifier.start();
 * await access.approvePairing(code);
 * await notifier.sweep(); // told at once
 */
export class PairingNotifier {
  readonly #options: PairingNotifierOptions;
  readonly #book: PairingBook;
  readonly #now: () => number;
  #timer: ReturnType<typeof setInterval> | undefined;
  /** The sweep running, and the one asked for meanwhile (one at most: it sees everything anyway). */
  #current: Promise<void> | undefined;
  #next: Promise<void> | undefined;

  constructor(options: PairingNotifierOptions) {
    this.#options = options;
    this.#now = options.now ?? Date.now;
    this.#book = new PairingBook(options.store, { now: this.#now });
  }

  /** Sweeps now and every `intervalMs` until {@link stop}. */
  start(): void {
    if (this.#timer) return;
    void this.sweep();
    this.#timer = setInterval(() => void this.sweep(), this.#options.intervalMs ?? 3_000);
    this.#timer.unref();
  }

  /** Stops sweeping; resolves once the sweep under way (if any) is over. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#next;
    await this.#current;
  }

  /**
   * Sends every notice due; resolves once done. Asked during a sweep, it runs another one right
   * after (so it sees what was approved just before it was asked). Never rejects: failures are logged.
   */
  sweep(): Promise<void> {
    if (!this.#current) return this.#begin();
    this.#next ??= this.#current.then(() => {
      this.#next = undefined;
      return this.#begin();
    });
    return this.#next;
  }

  #begin(): Promise<void> {
    const run: Promise<void> = this.#sweepOnce()
      .catch((error: unknown) => this.#options.log(`pairing: notices not swept: ${errorMessage(error)}`))
      .finally(() => {
        if (this.#current === run) this.#current = undefined;
      });
    this.#current = run;
    return run;
  }

  async #sweepOnce(): Promise<void> {
    await this.#options.refresh();
    for (const key of await this.#options.store.list(noticePrefix)) {
      await this.#options.store.withLock(key, () => this.#deliver(key));
    }
  }

  /** Sends the notice at `key` if it is due (called under the key's lock). */
  async #deliver(key: string): Promise<void> {
    const { store, log } = this.#options;
    const notice = await store.get<PairingNotice>(key);
    if (!notice) return;
    const who = notice.group ? groupLabel(notice.group) : `${notice.platform}:${notice.userId}`;
    const now = this.#now();
    if (notice.claimedAt !== undefined) {
      log(`pairing: the approval notice to ${who} may not have gone out (the gateway stopped while sending it); not sent again`);
      return store.delete(key);
    }
    if ((notice.retryAt ?? 0) > now) return;
    const adapter = this.#options.adapters.get(notice.address.platform);
    if (!adapter) return;
    const approved = notice.group ? await this.#book.groups.isApproved(notice.group) : await this.#book.isApproved(notice.platform, notice.userId ?? '');
    if (!approved) {
      // The approver writes the notice just before the approval: a young one may be waiting for it.
      if (now - notice.createdAt > orphanMs) await store.delete(key);
      return;
    }
    const text = notice.group ? groupNoticeText : pairingNoticeText(await this.#isOwner(notice));
    const ttlSeconds = Math.max(1, Math.ceil((notice.expiresAt - now) / 1000));
    await store.set(key, { ...notice, claimedAt: now }, { ttlSeconds });
    try {
      await adapter.send(notice.address, { text });
    } catch (error) {
      const attempts = notice.attempts + 1;
      if (attempts >= maxAttempts) {
        log(`pairing: could not tell ${who} they were approved (${attempts} tries, last: ${errorMessage(error)}); given up`);
        return store.delete(key);
      }
      if (attempts === 1) log(`pairing: could not tell ${who} they were approved (${errorMessage(error)}); trying again later`);
      // 10 s, 20 s, 40 s, ... up to an hour.
      const retryAt = now + Math.min(3_600_000, 10_000 * 2 ** (attempts - 1));
      return store.set(key, { ...notice, attempts, retryAt }, { ttlSeconds });
    }
    await store.delete(key);
  }

  /** Whether the person of `notice` is the owner made by pairing. */
  async #isOwner(notice: PairingNotice): Promise<boolean> {
    const owner = await this.#book.owner();
    return owner?.platform === notice.platform && owner.userId === notice.userId;
  }
}
