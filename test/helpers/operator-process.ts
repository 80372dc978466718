/**
 * The `operator` command run for real (`node bin/operator.js <args>`) in a process of its own, the
 * way a person runs it, with an environment the test spells out and its output captured.
 */
import { execFile, spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { captureOutput } from './captured-output.ts';
import type { CapturedOutput } from './captured-output.ts';
import { isRunning, stopProcess } from './stop-process.ts';

const bin = fileURLToPath(new URL('../../bin/operator.js', import.meta.url));

/** How long {@link OperatorProcess.stop} waits after SIGTERM before it sends SIGKILL. */
const defaultGraceMs = 10_000;

/** Options of {@link spawnOperator}. */
export interface OperatorProcessOptions {
  /** HOME and OPERATOR_HOME of the process (see `createTempHome`). */
  home: string;
  /**
   * More environment. Of the test runner's own environment only PATH is passed on, so settings
   * and keys the developer happens to have set never reach the process.
   */
  env?: Record<string, string>;
  /**
   * Working directory of the process (the tools' workspace); default `home`. Not the test
   * runner's (the repository): a developer's own `.env` there would reach the process, as would
   * files the agent's tools write.
   */
  cwd?: string;
}

/** A running (or finished) `operator` process. */
export interface OperatorProcess {
  readonly child: ChildProcessWithoutNullStreams;
  /** What it has written so far, and waiting for more. */
  readonly output: CapturedOutput;
  /**
   * Resolves with the exit code once the process has exited and all its output has been read;
   * `null` when a signal ended it.
   */
  readonly exited: Promise<number | null>;
  /** Writes `line` and a newline to its stdin, as if typed. */
  send(line: string): void;
  /** SIGTERM, then SIGKILL if it is still running after `graceMs` (default 10 s); resolves with the exit code. */
  stop(graceMs?: number): Promise<number | null>;
  /** SIGKILL: no draining and no clean-up, like a crash; resolves with the exit code (`null` if the signal ended it). */
  kill(): Promise<number | null>;
}

/** Starts `node bin/operator.js ...args`; returns at once, without waiting for anything it prints. */
export function spawnOperator(args: readonly string[], options: OperatorProcessOptions): OperatorProcess {
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: options.cwd ?? options.home,
    env: { PATH: process.env.PATH, HOME: options.home, OPERATOR_HOME: options.home, ...options.env },
  });
  const output = captureOutput(child);
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return {
    child,
    output,
    exited,
    send: (line) => void child.stdin.write(`${line}\n`),
    async stop(graceMs = defaultGraceMs) {
      await stopProcess(child, graceMs);
      return exited;
    },
    async kill() {
      if (isRunning(child)) child.kill('SIGKILL');
      return exited;
    },
  };
}

/** What a finished `operator` command printed, and its exit code. */
export interface OperatorRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `node bin/operator.js ...args` to its end, as a person would type it, with `env` (of the
 * runner's own environment only PATH is passed on).
 */
export function runOperator(args: readonly string[], env: Record<string, string>): Promise<OperatorRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { env: { PATH: process.env.PATH ?? '', ...env } }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}
