import { ProviderError } from '../../core/errors.ts';

/** Default longest silence between stream events: the SDKs' default request timeout. */
export const defaultIdleTimeoutMs = 10 * 60 * 1000;

/**
 * Aborts a streaming request when no data arrives for `timeoutMs`. The SDKs' own timeout ends
 * when the response headers arrive, so without this a stream that stalls afterwards would hang
 * its session forever.
 */
export class IdleWatch {
  /** Pass this to the SDK call: it aborts on the caller's signal or on silence. */
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  private readonly timeoutMs: number;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private expired = false;

  constructor(timeoutMs: number, callerSignal?: AbortSignal) {
    this.timeoutMs = timeoutMs;
    this.signal = callerSignal ? AbortSignal.any([callerSignal, this.controller.signal]) : this.controller.signal;
  }

  /** Restarts the countdown; call on every event received. */
  touch(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.expired = true;
      this.controller.abort();
    }, this.timeoutMs);
  }

  /** Stops watching. */
  stop(): void {
    clearTimeout(this.timer);
  }

  /** @throws ProviderError (`TIMEOUT`) when the stream fell silent. */
  throwIfExpired(provider: string): void {
    if (!this.expired) return;
    throw new ProviderError(`${provider}: request timed out: no data for ${this.timeoutMs} ms`, { provider, kind: 'TIMEOUT' });
  }
}
