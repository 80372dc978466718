/**
 * How often a person hears why their message was not answered: once per reason per hour. A member
 * who keeps writing in a group nobody approved, or a person whose every message meets the same
 * spending cap, hears the reason the first time; the rest of the hour stays silent (each refusal
 * is still reported, see `refusals.ts`). A different reason is told at once.
 *
 * Kept in memory: a restart forgets who was told, so at worst a person hears a reason once more
 * after one. The memory is bounded; past `maxEntries` the oldest are forgotten first (again, at
 * worst one notice more, never one fewer).
 */

/** An hour: how long a reason told to a person stays told. */
export const refusalNoticeWindowMs = 3_600_000;

/** Options of {@link RefusalNotices}. */
export interface RefusalNoticeOptions {
  /** The clock (ms since the epoch); `Date.now` by default. */
  now?: () => number;
  /** How long a reason stays told (default {@link refusalNoticeWindowMs}). */
  windowMs?: number;
  /** How many (person, reason) pairs are remembered at most (default 10,000). */
  maxEntries?: number;
}

/** Who was told which reason, and when. */
export class RefusalNotices {
  /** `person\nreason` -> when told; kept in the order told, so the oldest come first. */
  readonly #told = new Map<string, number>();
  readonly #now: () => number;
  readonly #windowMs: number;
  readonly #maxEntries: number;

  constructor(options: RefusalNoticeOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#windowMs = options.windowMs ?? refusalNoticeWindowMs;
    this.#maxEntries = options.maxEntries ?? 10_000;
  }

  /**
   * Whether `person` (e.g. `telegram:42`) is to be told `reason` now: true when they were not told
   * it within the window, and then it counts as told from now.
   */
  take(person: string, reason: string): boolean {
    const now = this.#now();
    const key = `${person}\n${reason}`;
    const at = this.#told.get(key);
    if (at !== undefined && now - at < this.#windowMs) return false;
    // Deleted first so it moves to the end: the map stays in the order told.
    this.#told.delete(key);
    this.#told.set(key, now);
    this.#forget(now);
    return true;
  }

  /** How many (person, reason) pairs are remembered (for tests and the bound). */
  get size(): number {
    return this.#told.size;
  }

  /** Drops what is past the window, and the oldest beyond the bound. */
  #forget(now: number): void {
    for (const [key, at] of this.#told) {
      if (now - at < this.#windowMs && this.#told.size <= this.#maxEntries) break;
      this.#told.delete(key);
    }
  }
}
