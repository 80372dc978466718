/** The errors of the channel contract (`types.ts` exports them): a failed delivery, a message not taken. */

/** A send or edit that failed. */
export class DeliveryError extends Error {
  /** Worth trying again (rate limit, network, 5xx). */
  readonly retryable: boolean;
  /** The platform asked to wait this long (429 retry_after). */
  readonly retryAfterMs: number | undefined;
  /**
   * Ids of the parts of a long message delivered before this failure (empty when none): retry
   * with `skipParts` set to how many there are.
   */
  readonly delivered: readonly string[];
  constructor(message: string, options: { retryable: boolean; retryAfterMs?: number; cause?: unknown; delivered?: readonly string[] }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DeliveryError';
    this.retryable = options.retryable;
    this.retryAfterMs = options.retryAfterMs;
    this.delivered = options.delivered ?? [];
  }

  /** This error, noting the parts delivered before it (for a send of several parts). */
  withDelivered(delivered: readonly string[]): DeliveryError {
    if (delivered.length === 0) return this;
    const copy = new DeliveryError(this.message, { retryable: this.retryable, retryAfterMs: this.retryAfterMs, cause: this.cause, delivered });
    copy.stack = this.stack;
    return copy;
  }
}

/** The gateway could not take a message now (stopping, or its storage failed); deliver it again later. */
export class NotAcceptedError extends Error {
  override name = 'NotAcceptedError';
}
