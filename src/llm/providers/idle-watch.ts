import { ProviderError } from '../../core/errors.ts';

/** How long a provider may take to send anything, and then to stay silent between events. */
export interface StreamTimeouts {
  /** From the request until its first stream event (the response headers included). */
  firstByteMs: number;
  /** Between two stream events once the first arrived. */
  idleMs: number;
}

/**
 * Aborts a streaming request that sends nothing: no first event within `firstByteMs` of the
 * request (no response headers, or headers and then nothing), or no event for `idleMs` after the
 * first. The SDKs' own timeout ends when the response headers arrive, so without this a stream
 * that stalls afterwards would hang its turn for as long as the provider holds the connection.
 * Either expiry is a retryable `TIMEOUT`: the agent's retry loop tries again.
 */
export class IdleWatch {
  /** Pass this to the SDK call: it aborts on the caller's signal or on silence. */
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  private readonly timeouts: StreamTimeouts;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private expired: string | undefined;
  private started = false;

  constructor(timeouts: StreamTimeouts, callerSignal?: AbortSignal) {
    this.timeouts = timeouts;
    this.signal = callerSignal ? AbortSignal.any([callerSignal, this.controller.signal]) : this.controller.signal;
    this.arm(timeouts.firstByteMs, `no first byte within ${timeouts.firstByteMs} ms`);
  }

  /** An event arrived: the countdown starts again, now for the idle limit. */
  touch(): void {
    this.started = true;
    this.arm(this.timeouts.idleMs, `no data for ${this.timeouts.idleMs} ms`);
  }

  /** Waits with the countdown held (the caller handles an event); `resume` by `touch`. */
  stop(): void {
    clearTimeout(this.timer);
  }

  /** Whether an event arrived yet. */
  get receiving(): boolean {
    return this.started;
  }

  /** @throws ProviderError (`TIMEOUT`, retryable) when the stream sent nothing in time. */
  throwIfExpired(provider: string): void {
    if (this.expired === undefined) return;
    throw new ProviderError(`${provider}: request timed out: ${this.expired}`, { provider, kind: 'TIMEOUT' });
  }

  private arm(ms: number, reason: string): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.expired = reason;
      this.controller.abort();
    }, ms);
  }
}

/**
 * Timeouts set for every provider: `OPERATOR_MODEL_FIRST_BYTE_SECONDS` and
 * `OPERATOR_MODEL_IDLE_SECONDS` (operator.json's `modelTimeouts` sets them); what is unset keeps
 * the provider's default.
 */
export function timeoutsFromEnv(env: Record<string, string | undefined>): Partial<StreamTimeouts> {
  const seconds = (name: string) => {
    const value = Number(env[name]?.trim() || Number.NaN);
    return Number.isFinite(value) && value > 0 ? value * 1000 : undefined;
  };
  const firstByteMs = seconds('OPERATOR_MODEL_FIRST_BYTE_SECONDS');
  const idleMs = seconds('OPERATOR_MODEL_IDLE_SECONDS');
  return { ...(firstByteMs !== undefined && { firstByteMs }), ...(idleMs !== undefined && { idleMs }) };
}
