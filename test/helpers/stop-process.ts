/**
 * Ending a child process politely first: SIGTERM lets it finish what it is doing (the gateway
 * drains turns in flight), SIGKILL after a grace period keeps a hung one from outliving the test.
 */
import type { ChildProcess } from 'node:child_process';

/** Whether `child` has neither exited nor been ended by a signal yet. */
export function isRunning(child: ChildProcess): boolean {
  return child.exitCode === null && child.signalCode === null;
}

/**
 * Sends SIGTERM and, if `child` is still running `graceMs` later, SIGKILL; resolves once it has
 * exited (at once if it already had).
 */
export async function stopProcess(child: ChildProcess, graceMs: number): Promise<void> {
  if (!isRunning(child)) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}
