/**
 * Failed logins per client: after `maxFailures` within `windowMs` of the first, the client is
 * refused until that window ends, without its guesses being checked. Every way in that takes a
 * secret counts its wrong guesses here: the web chat's and the console's logins, and the bearer
 * checks of `/metrics`, `/control/*` and the admin API (see `bearer-gate.ts`). Memory is bounded: at most
 * `maxClients` are remembered, expired ones swept first, then the least recently failed dropped.
 * The failures can be kept elsewhere too (`failures`, `onChange`): a Worker's access object keeps
 * them in its storage, so that one count holds for every isolate.
 */

/** One client's failed attempts: how many, since the first of its window (ms since the epoch). */
export interface LoginFailures {
  count: number;
  since: number;
}

/** Options of {@link LoginRateLimiter}. */
export interface LoginRateLimiterOptions {
  /** Failures allowed in a window (5). */
  maxFailures?: number;
  /** The window, from a client's first failure (15 minutes). */
  windowMs?: number;
  /** Clients remembered at most (10,000). */
  maxClients?: number;
  /**
   * Whether a right attempt forgets the client's failures (true). False where more than one
   * secret opens the door (`/metrics` takes the admin token and `OPERATOR_METRICS_TOKEN`): holding
   * the lesser must not buy more guesses at the greater. Failures then only expire.
   */
  forgetOnSuccess?: boolean;
  now?: () => number;
  /** Failures remembered from before (read back from storage), least recently failed first. */
  failures?: Iterable<readonly [string, LoginFailures]>;
  /** Told each change of a client's failures, `undefined` when they are forgotten: to keep them in storage. */
  onChange?: (client: string, failures: LoginFailures | undefined) => void;
}

/**
 * What became of a login attempt. `refused`: not let in whatever the token, for `retryAfter`
 * seconds; `reachedNow` when this attempt was the wrong one that reached the limit (the moment to
 * report the client), false when the client was at the limit already.
 */
export type LoginOutcome = { outcome: 'ok' } | { outcome: 'wrong' } | { outcome: 'refused'; retryAfter: number; reachedNow: boolean };

/**
 * What the web login asks of a rate limiter: one call per attempt, made once the guess is known,
 * so a limiter kept elsewhere (a Worker's access object) is asked once, and attempts sent in
 * parallel are each counted before the next is decided. A limiter that throws (cannot be reached)
 * makes the login refuse the attempt.
 */
export interface LoginLimiter {
  attempt(client: string, right: boolean): LoginOutcome | Promise<LoginOutcome>;
}

/**
 * @example
 * const limiter = new LoginRateLimiter();
 * const result = limiter.attempt(client, tokenMatches);
 * if (result.outcome === 'refused') return tooManyAttempts(result.retryAfter);
 * // or step by step: retryAfter(client), then fail(client) or succeed(client)
 */
export class LoginRateLimiter implements LoginLimiter {
  readonly #maxFailures: number;
  readonly #windowMs: number;
  readonly #maxClients: number;
  readonly #forgetOnSuccess: boolean;
  readonly #now: () => number;
  readonly #onChange: (client: string, failures: LoginFailures | undefined) => void;
  readonly #failures = new Map<string, LoginFailures>();

  constructor(options: LoginRateLimiterOptions = {}) {
    this.#maxFailures = options.maxFailures ?? 5;
    this.#windowMs = options.windowMs ?? 15 * 60 * 1000;
    this.#maxClients = options.maxClients ?? 10_000;
    this.#forgetOnSuccess = options.forgetOnSuccess ?? true;
    this.#now = options.now ?? Date.now;
    this.#onChange = options.onChange ?? (() => undefined);
    for (const [client, failures] of options.failures ?? []) {
      // Through the same bound as new failures: a store kept with a larger `maxClients` is cut down to this one.
      this.#makeRoom();
      this.#failures.set(client, { count: failures.count, since: failures.since });
    }
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
    const failures = { count: entry.count + 1, since: entry.since };
    this.#failures.set(client, failures);
    this.#onChange(client, { ...failures });
    return this.retryAfter(client);
  }

  /** A successful login forgets the client's failures. */
  succeed(client: string): void {
    this.#forget(client);
  }

  /**
   * One attempt, decided and recorded in one step: refused when the client is at the limit
   * (`right` then not looked at), else its failure counted or (unless `forgetOnSuccess` is off)
   * its failures forgotten.
   */
  attempt(client: string, right: boolean): LoginOutcome {
    const wait = this.retryAfter(client);
    if (wait !== undefined) return { outcome: 'refused', retryAfter: wait, reachedNow: false };
    if (right) {
      if (this.#forgetOnSuccess) this.succeed(client);
      return { outcome: 'ok' };
    }
    const blocked = this.fail(client);
    return blocked === undefined ? { outcome: 'wrong' } : { outcome: 'refused', retryAfter: blocked, reachedNow: true };
  }

  /** Clients remembered now. */
  get size(): number {
    return this.#failures.size;
  }

  #current(client: string): LoginFailures | undefined {
    const entry = this.#failures.get(client);
    if (entry !== undefined && this.#now() - entry.since >= this.#windowMs) {
      this.#forget(client);
      return undefined;
    }
    return entry;
  }

  #forget(client: string): void {
    if (this.#failures.delete(client)) this.#onChange(client, undefined);
  }

  #makeRoom(): void {
    if (this.#failures.size < this.#maxClients) return;
    const now = this.#now();
    for (const [client, entry] of this.#failures) if (now - entry.since >= this.#windowMs) this.#forget(client);
    for (const client of this.#failures.keys()) {
      if (this.#failures.size < this.#maxClients) break;
      this.#forget(client);
    }
  }
}
