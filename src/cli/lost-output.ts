/**
 * The gateway's own output going away must not take it down. When the terminal closes or the
 * process reading its output dies (a supervisor's log pipe, a test runner killed), every write to
 * stdout or stderr fails with EPIPE, which Node reports as an `error` event on the stream; with no
 * listener that is an uncaught exception, whose stop writes about it, which fails the same way,
 * and so on: the process spun on that at half a core, never finishing its stop. The lines are lost
 * (there is nowhere left to write them); the gateway goes on answering.
 */

/** Ignores write errors on `streams` (default stdout and stderr) from now on. */
export function surviveLostOutput(streams: readonly NodeJS.WritableStream[] = [process.stdout, process.stderr]): void {
  for (const stream of streams) stream.on('error', () => undefined);
}
