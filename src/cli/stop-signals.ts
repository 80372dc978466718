/**
 * What stops `operator start`: SIGTERM, SIGINT, or an exception nothing caught. Exceptions thrown
 * by platform SDKs, extensions and tools are stopped at their boundaries (the adapters', the
 * agent's) and never get here; one that does is a fault of the gateway's own state, so it is not
 * lived with: it is logged (its class and where it was thrown, never its message's data) and the
 * gateway stops through the same path as a SIGTERM, letting turns in flight finish and deliver,
 * the ledger and journal written, then exits 1 so the supervisor (systemd, Docker, pm2) starts it
 * again. What was not answered is answered once after the restart, from the inbox.
 */
import { describeOutsideError } from '../core/outside-error.ts';

/** How long a stop after an uncaught exception may take beyond the grace before the process exits anyway. */
const failureMarginMs = 10_000;

/** Options of {@link listenForStop}. */
export interface StopSignalsOptions {
  /** Where lines go (default stdout for signals, stderr for failures). */
  write?(line: string, stream: 'stdout' | 'stderr'): void;
  /** The shutdown grace, in ms, once known (see `shutdownGraceSeconds`). */
  graceMs(): number;
}

/** The stop of a running gateway, given its exit code (0 after a signal, 1 after a failure). */
export type StopGateway = (code: number) => Promise<void>;

/**
 * SIGTERM, SIGINT, uncaught exceptions and unhandled rejections from now on: the first runs the
 * stop given to `onStop` (at once if it came before it was given). A second signal exits at once;
 * a later exception is logged and the stop goes on, bounded by the grace plus ten seconds.
 *
 * @example
 * const signals = listenForStop({ graceMs: () => config.shutdownGraceSeconds * 1000 });
 * // ... start the gateway ...
 * signals.onStop(async (code) => { await gateway.stop(); resolve(code); });
 */
export function listenForStop(options: StopSignalsOptions): { onStop(stop: StopGateway): void } {
  const write = options.write ?? ((line, stream) => process[stream].write(`${line}\n`));
  let code: number | undefined;
  let stop: StopGateway | undefined;

  const begin = (exitCode: number) => {
    code = exitCode;
    void stop?.(exitCode);
  };
  const onSignal = () => {
    if (code !== undefined) {
      write('operator: stopping now; unfinished answers follow after the next start', 'stdout');
      process.exit(1);
    }
    begin(0);
  };
  const onFailure = (error: unknown, origin: string) => {
    const kind = origin === 'unhandledRejection' ? 'unhandled rejection' : 'uncaught exception';
    if (code !== undefined) {
      write(`operator: ${kind} while stopping (${describeOutsideError(error)}); the stop goes on`, 'stderr');
      return;
    }
    write(`operator: ${kind} (${describeOutsideError(error)}); stopping through the usual shutdown, then exiting 1 so the supervisor starts operator again`, 'stderr');
    // A stop the broken state keeps from finishing must not keep the process up.
    setTimeout(() => {
      write('operator: the stop after the failure did not finish in time; exiting now', 'stderr');
      process.exit(1);
    }, options.graceMs() + failureMarginMs).unref();
    begin(1);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  process.on('uncaughtException', onFailure);
  process.on('unhandledRejection', (reason) => onFailure(reason, 'unhandledRejection'));
  return {
    onStop(given) {
      stop = given;
      if (code !== undefined) void given(code);
    },
  };
}
