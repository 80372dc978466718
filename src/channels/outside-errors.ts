/**
 * The adapters' boundary against exceptions from code they hand events to: the platform SDK's
 * own handling of a dispatch, update or event, and the handlers behind it. Whatever throws there
 * is stopped at the boundary, never left to end the process (and every other platform with it):
 * it is reported to {@link ChannelHandlers.status} with the platform and the event's type (never
 * the payload's text, never a token), which the gateway logs (`outside.error`) and counts in
 * `operator_outside_errors_total`; without a status listener it is logged by the adapter. The event is dropped; the adapter goes on with the next one.
 */
import { describeOutsideError, outsideEventLabel } from '../core/outside-error.ts';
import type { ChannelHandlers } from './types.ts';

/** Reports exceptions stopped at one adapter's boundary. */
export interface OutsideErrors {
  /** Reports (or logs) that handling `event` threw `error`. Never throws. */
  report(event: string, error: unknown): void;
  /** Runs `work`, reporting (and swallowing) what it throws, as the handling of `event`. */
  guard(event: string, work: () => void): void;
}

/** What {@link createOutsideErrors} needs from its adapter. */
export interface OutsideErrorsOptions {
  /** The current handlers' `status`, if any (read on every report: handlers change per start). */
  status(): ChannelHandlers['status'];
  /** The adapter's token scrubber. */
  scrub(text: string): string;
  log(line: string): void;
  /** The platform, for the log line. */
  platform: string;
}

/**
 * Creates the boundary of one adapter.
 *
 * @example
 * const outside = createOutsideErrors({ status: () => handlers?.status, scrub, log, platform: 'discord' });
 * outside.guard('INTERACTION_CREATE', () => handlePacket(packet));
 */
export function createOutsideErrors(options: OutsideErrorsOptions): OutsideErrors {
  const report = (event: string, error: unknown) => {
    try {
      const label = outsideEventLabel(event);
      const described = options.scrub(describeOutsideError(error));
      const status = options.status();
      // The gateway logs and counts what `status` is told (one line, `outside.error`).
      if (status) status({ kind: 'outside_error', event: label, error: described });
      else options.log(`${options.platform}: handling a ${label} event threw (${described}); that event is dropped and the adapter goes on`);
    } catch {
      // Reporting must not become the next exception at the boundary.
    }
  };
  return {
    report,
    guard(event, work) {
      try {
        work();
      } catch (error) {
        report(event, error);
      }
    },
  };
}
