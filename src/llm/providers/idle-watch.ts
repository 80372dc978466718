import { ProviderError } from '../../core/errors.ts';

/** How long a provider may take to send anything, and then to stay silent. */
export interface StreamTimeouts {
  /** From the request until the first byte of the response body (the headers alone do not count). */
  firstByteMs: number;
  /** Between two pieces of the body once the first arrived. */
  idleMs: number;
}

/**
 * How much longer than the first-byte limit the SDK's own request timeout is: it is a backstop
 * for the wait for the headers, and the watch, which fires first, names the limit in its error.
 */
export const sdkTimeoutMarginMs = 1_000;

/**
 * Aborts a streaming request that sends nothing: no first byte of the body within `firstByteMs` of
 * the request (no response headers, or headers and then nothing), or nothing for `idleMs` after
 * that. The SDKs' own timeout ends when the response headers arrive, so without this a stream
 * that stalls afterwards would hang its turn for as long as the provider holds the connection.
 * Either expiry is a retryable `TIMEOUT`: the agent's retry loop tries again.
 *
 * What counts as life is any byte of the body ({@link IdleWatch.heard}, from `watchedFetch`),
 * not only the events the SDK hands on: Anthropic's `ping` events and the SSE comments some
 * OpenAI-compatible servers send while a model thinks are dropped by the SDKs, yet they prove the
 * stream is alive. While the caller handles an event the countdown is held, so a slow consumer is
 * never mistaken for a silent server.
 */
export class IdleWatch {
  /** Pass this to the SDK call: it aborts on the caller's signal or on silence. */
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  private readonly timeouts: StreamTimeouts;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private expired: string | undefined;
  private held = false;
  private done = false;

  constructor(timeouts: StreamTimeouts, callerSignal?: AbortSignal) {
    this.timeouts = timeouts;
    this.signal = callerSignal ? AbortSignal.any([callerSignal, this.controller.signal]) : this.controller.signal;
    this.arm(timeouts.firstByteMs, `no first byte within ${timeouts.firstByteMs} ms`);
  }

  /** Bytes of the body arrived: the countdown starts again, now for the idle limit. */
  heard(): void {
    if (!this.held) this.arm(this.timeouts.idleMs, `no data for ${this.timeouts.idleMs} ms`);
  }

  /** The caller handles an event: the server's silence is not counted until {@link resume}. */
  hold(): void {
    this.held = true;
    clearTimeout(this.timer);
  }

  /** The caller is done with the event (which was data): the idle countdown starts again. */
  resume(): void {
    this.held = false;
    this.heard();
  }

  /** The request is over: nothing is counted any more. */
  stop(): void {
    this.done = true;
    clearTimeout(this.timer);
  }

  /** @throws ProviderError (`TIMEOUT`, retryable) when the stream sent nothing in time. */
  throwIfExpired(provider: string): void {
    if (this.expired === undefined) return;
    throw new ProviderError(`${provider}: request timed out: ${this.expired}`, { provider, kind: 'TIMEOUT' });
  }

  private arm(ms: number, reason: string): void {
    clearTimeout(this.timer);
    if (this.done) return;
    this.timer = setTimeout(() => {
      this.expired = reason;
      this.controller.abort();
    }, ms);
  }
}

/** Environment variables of the model timeouts, for all providers or for one (which wins). */
export const timeoutVariables = {
  firstByte: (provider?: string) => `OPERATOR_${provider === undefined ? 'MODEL' : provider.toUpperCase()}_FIRST_BYTE_SECONDS`,
  idle: (provider?: string) => `OPERATOR_${provider === undefined ? 'MODEL' : provider.toUpperCase()}_IDLE_SECONDS`,
};

/**
 * The timeouts the environment sets for `provider`: `OPERATOR_<PROVIDER>_FIRST_BYTE_SECONDS` and
 * `OPERATOR_<PROVIDER>_IDLE_SECONDS` (e.g. `OPERATOR_OPENAI_IDLE_SECONDS`), else
 * `OPERATOR_MODEL_FIRST_BYTE_SECONDS` and `OPERATOR_MODEL_IDLE_SECONDS` for every provider
 * (operator.json's `modelTimeouts` sets them). What is unset, or not a positive number, keeps the
 * provider's default.
 */
export function timeoutsFromEnv(env: Record<string, string | undefined>, provider?: string): Partial<StreamTimeouts> {
  const seconds = (name: string) => {
    const value = Number(env[name]?.trim() || Number.NaN);
    return Number.isFinite(value) && value > 0 ? value * 1000 : undefined;
  };
  const pick = (variable: (provider?: string) => string) => (provider === undefined ? undefined : seconds(variable(provider))) ?? seconds(variable());
  const firstByteMs = pick(timeoutVariables.firstByte);
  const idleMs = pick(timeoutVariables.idle);
  return { ...(firstByteMs !== undefined && { firstByteMs }), ...(idleMs !== undefined && { idleMs }) };
}
