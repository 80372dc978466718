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
 *
 * A stream hears a piece many times a second, so hearing one only moves a deadline: the one timer
 * is set again when it fires early, not at every piece (a timer set and cleared per piece was a
 * measurable share of a turn's CPU on Workers).
 */
export class IdleWatch {
  /** Pass this to the SDK call: it aborts on the caller's signal or on silence. */
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  private readonly timeouts: StreamTimeouts;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** When the pending timer fires (`Date.now()` time). */
  private wakeAt = 0;
  /** When the current countdown ends (`Date.now()` time), and what it then says. */
  private deadline: number;
  private reason: string;
  private expired: string | undefined;
  private held = false;
  private done = false;

  constructor(timeouts: StreamTimeouts, callerSignal?: AbortSignal) {
    this.timeouts = timeouts;
    this.signal = callerSignal ? AbortSignal.any([callerSignal, this.controller.signal]) : this.controller.signal;
    this.deadline = Date.now() + timeouts.firstByteMs;
    this.reason = `no first byte within ${timeouts.firstByteMs} ms`;
    this.wake(timeouts.firstByteMs);
  }

  /** Bytes of the body arrived: the countdown starts again, now for the idle limit. */
  heard(): void {
    if (this.held || this.done) return;
    this.deadline = Date.now() + this.timeouts.idleMs;
    this.reason = `no data for ${this.timeouts.idleMs} ms`;
    // Set again only when none is pending, or the pending one is due after the new deadline (the
    // first-byte timer, when the idle limit is the shorter): never once per piece.
    if (this.timer !== undefined && this.wakeAt <= this.deadline) return;
    clearTimeout(this.timer);
    this.wake(this.timeouts.idleMs);
  }

  /** The caller handles an event: the server's silence is not counted until {@link resume}. */
  hold(): void {
    this.held = true;
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
    this.timer = undefined;
  }

  /** @throws ProviderError (`TIMEOUT`, retryable) when the stream sent nothing in time. */
  throwIfExpired(provider: string): void {
    if (this.expired === undefined) return;
    throw new ProviderError(`${provider}: request timed out: ${this.expired}`, { provider, kind: 'TIMEOUT' });
  }

  /** Looks again in `ms`: aborts if the deadline has passed by then and nothing holds it. */
  private wake(ms: number): void {
    this.wakeAt = Date.now() + ms;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.done || this.held) return; // resume() starts a new countdown
      const left = this.deadline - Date.now();
      if (left > 0) return this.wake(left);
      this.expired = this.reason;
      this.controller.abort();
    }, ms);
  }
}

/** Environment variables of the model timeouts, for all providers or for one (which wins). */
export const timeoutVariables = {
  firstByte: (provider?: string) => `OPERATOR_${provider === undefined ? 'MODEL' : provider.toUpperCase()}_FIRST_BYTE_SECONDS`,
  idle: (provider?: string) => `OPERATOR_${provider === undefined ? 'MODEL' : provider.toUpperCase()}_IDLE_SECONDS`,
  notifyAfter: (provider?: string) => `OPERATOR_${provider === undefined ? 'MODEL' : provider.toUpperCase()}_NOTIFY_AFTER_SECONDS`,
};

/** Seconds a model call may send nothing before the person is told the provider is slow (see {@link notifyAfterFromEnv}). */
export const defaultNotifyAfterSeconds = 15;

/**
 * How long a model call of `provider` may stay silent before the person hears that the provider
 * is slow and operator keeps trying, in milliseconds: `OPERATOR_<PROVIDER>_NOTIFY_AFTER_SECONDS`,
 * else `OPERATOR_MODEL_NOTIFY_AFTER_SECONDS`, else {@link defaultNotifyAfterSeconds}. The gateway
 * tells the person; the providers only time out (see {@link IdleWatch}).
 */
export function notifyAfterFromEnv(env: Record<string, string | undefined>, provider: string): number {
  for (const name of [timeoutVariables.notifyAfter(provider), timeoutVariables.notifyAfter()]) {
    const value = Number(env[name]?.trim() || Number.NaN);
    if (Number.isFinite(value) && value > 0) return value * 1000;
  }
  return defaultNotifyAfterSeconds * 1000;
}

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
