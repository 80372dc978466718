/**
 * Whether the store takes writes, for `/healthz` and `/readyz`, and the damage its journals
 * reported. The gateway reports every store failure it meets (`reportFailure`); from then on the
 * state is `failing` and a probe tries a small real write every `probeIntervalMs` (2 s) until one
 * succeeds, which flips the state back to `ok` and tells `onRecovered` listeners (the gateway
 * answers the messages the failure left waiting). While `ok`, the same probe runs every
 * `checkIntervalMs` (30 s), so a disk that filled up or went read-only while the gateway was idle
 * shows too.
 *
 * The probe writes what the gateway's own work writes: a value (`health:probe`, via `set`, which
 * replaces a file), and a log record of `probeBytes` (4 KiB) that is appended and deleted again
 * (`health:probe-log`). It does not read anything back.
 */
import { errorCode, isStoreFailure } from '../../store/store-error.ts';
import type { Store } from '../../store/store.ts';
import type { JournalDamage } from '../journal.ts';

/** The store's state as {@link StoreHealth} knows it. */
export type StoreState =
  | { state: 'ok' }
  | {
      state: 'failing';
      /** The errno-style code of the last failure (`ENOSPC`, `EROFS`, `EIO`, `EUNAVAILABLE`...). */
      code: string;
      /** The store operation that failed last (`append`, `set`...), if known. */
      operation?: string;
      /** The last failure's message (may name files: for the log, not for the HTTP answer). */
      message: string;
      /** What the gateway was doing when it failed (`telegram:dm:42: message not taken`, `health probe`). */
      what: string;
      /** When the store began failing (ms since the epoch). */
      since: number;
      /** Failures reported (probes included) since then. */
      failures: number;
    };

/** The store's state in a health answer: no file names, keys or message content. */
export interface StoreHealthSummary {
  state: 'ok' | 'failing';
  /** The last failure's code and operation, while failing. */
  error?: { code: string; operation?: string };
  /** Since when it fails (ISO 8601), while failing. */
  since?: string;
}

/** A journal damage report in a health answer: counts, keys of segments, codes; no record content. */
export interface JournalDamageSummary {
  journal: string;
  segment: string;
  kind: JournalDamage['kind'];
  damagedRecords: number;
  keptRecords: number;
  /** Whether records whose keys are unknown may be lost. */
  recordsLost: boolean;
  /** When it was found (ISO 8601). */
  foundAt: string;
  /** Where the damaged copy was kept, if it could be moved aside. */
  movedTo?: string;
  /** Why the segment could not be read, if so (a code). */
  error?: string;
  /** Whether setting it aside and repairing it failed (the segment is examined again at the next start). */
  repairFailed: boolean;
}

/** Options of {@link StoreHealth}. */
export interface StoreHealthOptions {
  /** The store to probe: the gateway's own. */
  store: Store;
  /** How often to probe while the store fails, in ms (default 2,000). */
  probeIntervalMs?: number;
  /** How often to probe while the store works, in ms (default 30,000; 0: never). */
  checkIntervalMs?: number;
  /** Size of the probe's log record in bytes (default 4,096). */
  probeBytes?: number;
  /** How many damage reports are kept, the newest (default 50). */
  maxDamageReports?: number;
  /** Where state changes are logged (default: stderr). */
  log?: (line: string) => void;
  /** Clock in ms since the epoch (default `Date.now`). */
  now?: () => number;
}

/**
 * The store's health: failures reported and probed until a write works again, and journal damage.
 *
 * @example
 * const health = new StoreHealth({ store });
 * health.onRecovered(() => resumeParkedWork());
 * health.start();
 * try { await inbox.add(message, text); } catch (error) { if (isStoreFailure(error)) health.reportFailure(error, 'message not taken'); }
 */
export class StoreHealth {
  readonly #store: Store;
  readonly #probeIntervalMs: number;
  readonly #checkIntervalMs: number;
  readonly #probeRecord: string;
  readonly #maxDamageReports: number;
  readonly #log: (line: string) => void;
  readonly #now: () => number;
  #state: StoreState = { state: 'ok' };
  readonly #damage: JournalDamage[] = [];
  readonly #listeners = new Set<() => unknown>();
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** The delay `#timer` was set with. */
  #timerDelay = 0;
  #probing: Promise<boolean> | undefined;
  #started = false;
  #stopped = false;

  constructor(options: StoreHealthOptions) {
    this.#store = options.store;
    this.#probeIntervalMs = positive(options.probeIntervalMs ?? 2_000, 'probeIntervalMs');
    this.#checkIntervalMs = options.checkIntervalMs ?? 30_000;
    if (!Number.isFinite(this.#checkIntervalMs) || this.#checkIntervalMs < 0) throw new RangeError(`checkIntervalMs must be 0 or more, got ${this.#checkIntervalMs}`);
    this.#probeRecord = JSON.stringify({ probe: 'x'.repeat(Math.max(0, positive(options.probeBytes ?? 4_096, 'probeBytes') - 12)) });
    this.#maxDamageReports = positive(options.maxDamageReports ?? 50, 'maxDamageReports');
    this.#log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
    this.#now = options.now ?? Date.now;
  }

  /** The store's state now. */
  get state(): StoreState {
    return this.#state;
  }

  /** Damage reported by the journals, oldest first (the newest `maxDamageReports`). */
  get damage(): readonly JournalDamage[] {
    return this.#damage;
  }

  /**
   * A store operation failed while doing `what`. A store failure (see `isStoreFailure`: a full or
   * read-only disk, Redis out of reach) makes the state `failing` and starts probing; any other
   * error says nothing about the store and is ignored.
   */
  reportFailure(error: unknown, what: string): void {
    if (!isStoreFailure(error)) return;
    this.#fail(error, what);
    this.#schedule(this.#probeIntervalMs);
  }

  /** A journal found damage (see `JournalOptions.onDamage`): kept and listed in health answers. */
  reportDamage(report: JournalDamage): void {
    this.#damage.push(report);
    if (this.#damage.length > this.#maxDamageReports) this.#damage.splice(0, this.#damage.length - this.#maxDamageReports);
  }

  /** Calls `listener` each time the store works again after failing. Returns a function that removes it. */
  onRecovered(listener: () => unknown): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Starts the periodic check while `ok` (probing while failing starts with the first failure anyway). */
  start(): void {
    this.#started = true;
    this.#stopped = false;
    if (this.#state.state === 'failing') this.#schedule(this.#probeIntervalMs);
    else if (this.#checkIntervalMs > 0) this.#schedule(this.#checkIntervalMs);
  }

  /** Stops every timer; a probe under way finishes without scheduling another. */
  stop(): void {
    this.#stopped = true;
    this.#started = false;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /**
   * Tries a small real write now (one probe at a time): true when it worked. A success while
   * failing flips the state to `ok` and tells the `onRecovered` listeners; a failure makes it
   * `failing`.
   */
  probe(): Promise<boolean> {
    this.#probing ??= this.#runProbe().finally(() => (this.#probing = undefined));
    return this.#probing;
  }

  /** The state and damage for `/healthz` and `/readyz`: codes and counts only. */
  summary(): { store: StoreHealthSummary; journals: JournalDamageSummary[] } {
    const state = this.#state;
    const store: StoreHealthSummary =
      state.state === 'ok'
        ? { state: 'ok' }
        : { state: 'failing', error: { code: state.code, ...(state.operation !== undefined ? { operation: state.operation } : {}) }, since: new Date(state.since).toISOString() };
    return { store, journals: this.#damage.map(summarizeDamage) };
  }

  async #runProbe(): Promise<boolean> {
    try {
      await this.#store.set('health:probe', { at: this.#now() });
      await this.#store.append('health:probe-log', this.#probeRecord);
      await this.#store.deleteLog('health:probe-log');
    } catch (error) {
      this.#fail(error, 'health probe');
      return false;
    }
    if (this.#state.state === 'failing') this.#recover(this.#state);
    return true;
  }

  #fail(error: unknown, what: string): void {
    const code = errorCode(error) ?? 'EUNKNOWN';
    const operation = (error as { operation?: unknown } | null)?.operation;
    const message = error instanceof Error ? error.message : String(error);
    const previous = this.#state;
    this.#state = {
      state: 'failing',
      code,
      ...(typeof operation === 'string' ? { operation } : {}),
      message,
      what,
      since: previous.state === 'failing' ? previous.since : this.#now(),
      failures: previous.state === 'failing' ? previous.failures + 1 : 1,
    };
    if (previous.state === 'ok') this.#log(`operator: the store is failing (${code}, ${what}): ${message}; probing every ${this.#probeIntervalMs} ms`);
    else if (previous.code !== code) this.#log(`operator: the store is still failing, now with ${code}: ${message}`);
  }

  #recover(failed: Extract<StoreState, { state: 'failing' }>): void {
    this.#state = { state: 'ok' };
    this.#log(`operator: the store works again (it failed for ${Math.round((this.#now() - failed.since) / 1000)} s, ${failed.failures} failure${failed.failures === 1 ? '' : 's'}, last ${failed.code})`);
    for (const listener of this.#listeners) {
      // A listener's failure is its own; the others still run.
      void Promise.resolve()
        .then(listener)
        .catch((error: unknown) => this.#log(`operator: after the store recovered: ${error instanceof Error ? error.message : String(error)}`));
    }
  }

  /**
   * Runs a probe after `delayMs`, then the next at the interval the state asks for. A probe due
   * sooner is kept: failures reported one after another must not put the probe off forever.
   */
  #schedule(delayMs: number): void {
    if (this.#stopped) return;
    if (this.#timer !== undefined) {
      if (this.#timerDelay <= delayMs) return;
      clearTimeout(this.#timer);
    }
    this.#timerDelay = delayMs;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.probe().then(() => {
        if (this.#timer !== undefined) return;
        if (this.#state.state === 'failing') this.#schedule(this.#probeIntervalMs);
        else if (this.#started && this.#checkIntervalMs > 0) this.#schedule(this.#checkIntervalMs);
      });
    }, delayMs);
    // Health checks never keep the process alive.
    this.#timer.unref?.();
  }
}

/** A damage report as health answers list it. */
function summarizeDamage(report: JournalDamage): JournalDamageSummary {
  return {
    journal: report.journal,
    segment: report.segment,
    kind: report.kind,
    damagedRecords: report.damagedRecords,
    keptRecords: report.keptRecords,
    recordsLost: report.keysUnknown,
    foundAt: new Date(report.foundAt).toISOString(),
    ...(report.movedTo !== undefined ? { movedTo: report.movedTo } : {}),
    ...(report.error !== undefined ? { error: report.error } : {}),
    repairFailed: report.repairError !== undefined,
  };
}

function positive(value: number, name: string): number {
  if (!Number.isFinite(value) || value <= 0) throw new RangeError(`${name} must be a positive number, got ${value}`);
  return value;
}
