/**
 * The one error the scheduler throws for a request it refuses. Its message is written for the
 * model and for people (it is shown as is); `code` lets the caller choose how to react.
 */

/**
 * Why a request was refused:
 * - `invalid`: the arguments (schedule, timezone, prompt, ...) are wrong; the message says how.
 * - `limit`: a cap on jobs was reached, or jobs may not create jobs.
 * - `forbidden`: only the job's creator or an admin may do that.
 * - `not-found`: no job has that id.
 */
export type ScheduleErrorCode = 'invalid' | 'limit' | 'forbidden' | 'not-found';

/** A refused scheduler request. */
export class ScheduleError extends Error {
  override readonly name = 'ScheduleError';

  constructor(
    readonly code: ScheduleErrorCode,
    message: string,
  ) {
    super(message);
  }
}
