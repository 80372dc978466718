/**
 * Failed logins per client: after `maxFailures` within `windowMs` of the first, the client is
 * refused until that window ends, without its guesses being checked. Memory is bounded: at most
 * `maxClients` are remembered, expired ones swept first, then the least recently failed dropped.
 */

/** Options of {@link LoginRateLimiter}. */
export interface LoginRateLimiterOptions {
  /** Failures allowed in a window (5). */
  maxFailures?: number;
  /** The window, from a client's first failure (15 minutes). */
  windowMs?: number;
  /** Clients remembered at most (10,000). */
  maxClients?: number;
  now?: () => number;
}

interface Failures {
  count: number;
  since: number;
}

/**
 * @example
 * const limiter = new LoginRateLimiter();
 * const wait = limiter.retryAfter(client);
 * if (wait !== undefined) return tooManyAttempts(wait);
 * if (!tokenMatches) limiter.fail(client); else limiter.succeed(client);
 */
export class LoginRateLimiter {
  readonly #maxFailures: number;
  readonly #windowMs: number;
  readonly #maxClients: number;
  readonly #now: () => number;
  readonly #failures = new Map<string, Failures>();

  constructor(options: LoginRateLimiterOptions = {}) {
    this.#maxFailures = options.maxFailures ?? 5;
    this.#windowMs = options.windowMs ?? 15 * 60 * 1000;
    this.#maxClients = options.maxClients ?? 10_000;
    this.#now = options.now ?? Date.now;
  }

  /** Seconds `client` must wait before its next attempt is checked, or undefined when it may try now. */
  retryAfter(client: string): number | undefined {
    const entry = this.#current(client);
    if (entry === undefined || entry.count < this.#maxFailures) return undefined;
    return Math.max(1, Math.ceil((entry.since + this.#windowMs - this.#now()) / 1000));
  }

  /** Records a failed attempt; returns {@link retryAfter} after it. */
  fail(client: string): number | undefined {
    const entry = this.#current(client) ?? { count: 0, since: this.#now() };
    // Re-inserted, so the Map's order is least recently failed first.
    this.#failures.delete(client);
    this.#makeRoom();
    this.#failures.set(client, { count: entry.count + 1, since: entry.since });
    return this.retryAfter(client);
  }

  /** A successful login forgets the client's failures. */
  succeed(client: string): void {
    this.#failures.delete(client);
  }

  /** Clients remembered now. */
  get size(): number {
    return this.#failures.size;
  }

  #current(client: string): Failures | undefined {
    const entry = this.#failures.get(client);
    if (entry !== undefined && this.#now() - entry.since >= this.#windowMs) {
      this.#failures.delete(client);
      return undefined;
    }
    return entry;
  }

  #makeRoom(): void {
    if (this.#failures.size < this.#maxClients) return;
    const now = this.#now();
    for (const [client, entry] of this.#failures) if (now - entry.since >= this.#windowMs) this.#failures.delete(client);
    for (const client of this.#failures.keys()) {
      if (this.#failures.size < this.#maxClients) break;
      this.#failures.delete(client);
    }
  }
}
