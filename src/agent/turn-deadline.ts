/**
 * A turn's deadline. When it passes, the turn's abort signal fires with a {@link TurnTimeoutError}
 * as its reason: everything that honours the signal (model calls, tools, approvals, the wait
 * before a retry) stops, and the retry loop tells the deadline apart from a person's stop.
 */
import { TurnTimeoutError } from '../core/errors.ts';

/** Longest delay `setTimeout` takes (about 24.8 days); a longer deadline is no deadline. */
const maxTimerMs = 2 ** 31 - 1;

/** A running deadline; {@link TurnDeadline.clear} it when the turn ends. */
export class TurnDeadline {
  /** The deadline, in milliseconds from its start. */
  readonly timeoutMs: number;
  readonly #endsAt: number;
  readonly #now: () => number;
  readonly #timer: ReturnType<typeof setTimeout>;

  /** Starts the countdown; `expire` is called once, when it passes, with the turn's error. */
  constructor(timeoutMs: number, expire: (error: TurnTimeoutError) => void, now: () => number = Date.now) {
    this.timeoutMs = timeoutMs;
    this.#now = now;
    this.#endsAt = now() + timeoutMs;
    this.#timer = setTimeout(() => expire(new TurnTimeoutError(timeoutMs)), timeoutMs);
  }

  /** Milliseconds left (0 once it passed). */
  remainingMs(): number {
    return Math.max(0, this.#endsAt - this.#now());
  }

  /** Stops the countdown. */
  clear(): void {
    clearTimeout(this.#timer);
  }
}

/**
 * Starts the deadline of a turn of `timeoutMs`, calling `expire` when it passes. There is none
 * when `timeoutMs` is undefined or beyond what a timer can wait (`Infinity` included).
 *
 * @throws RangeError when `timeoutMs` is not a positive number.
 */
export function startTurnDeadline(timeoutMs: number | undefined, expire: (error: TurnTimeoutError) => void): TurnDeadline | undefined {
  if (timeoutMs === undefined) return undefined;
  if (!(timeoutMs > 0)) throw new RangeError(`A turn's timeout must be a positive number of milliseconds, got ${timeoutMs}`);
  return timeoutMs > maxTimerMs ? undefined : new TurnDeadline(timeoutMs, expire);
}

/** The deadline error `signal` was aborted with, when its deadline is why it aborted. */
export function deadlineReason(signal: AbortSignal): TurnTimeoutError | undefined {
  return signal.aborted && signal.reason instanceof TurnTimeoutError ? signal.reason : undefined;
}
