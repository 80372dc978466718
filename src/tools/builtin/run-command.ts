/**
 * Runs a command (what a sandbox's `spawnSpec` gives) as the leader of its own process group, so
 * that on timeout or abort the whole group (background jobs, pipelines, grandchildren) can be
 * signalled: SIGTERM first, SIGKILL after a grace period. In the bubblewrap sandbox the leader is
 * `bwrap`: its death takes down the sandbox's process 1 (`--die-with-parent`), and with it every
 * process of the sandbox's PID namespace, even those in a session of their own. A command with a
 * network of its own starts once slirp4netns has made it, and slirp4netns ends with `bwrap`.
 */
import { spawn } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';
import { attachOwnNetwork, ownNetworkCommand, ownNetworkStdio } from '../sandbox/own-network.ts';
import type { SpawnSpec } from '../sandbox/sandbox.ts';
import { OutputBuffer } from './output-buffer.ts';

/** What {@link runCommand} runs, where, and for how long. */
export interface RunCommandOptions {
  /** The program, its arguments, environment and working directory (see `Sandbox.spawnSpec`). */
  spawn: SpawnSpec;
  timeoutMs: number;
  /** Aborting stops the command like a timeout does. */
  signal: AbortSignal;
  /** Receives output as it arrives, stdout and stderr alike. */
  onOutput?: (text: string) => void;
  /** Milliseconds between SIGTERM and SIGKILL. Default 2,000. */
  killGraceMs?: number;
  /** Characters kept of each stream. Default 1,000,000. */
  maxOutputChars?: number;
}

/** How a command ended. */
export interface CommandResult {
  stdout: string;
  stderr: string;
  /** Null when a signal ended it. */
  exitCode: number | null;
  exitSignal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  /** Process id of what was spawned (the shell, or `bwrap`), which is also the process group id. */
  pid: number | undefined;
}

/** Longest the answer waits, after SIGKILL, for the output pipes to close (see `finishAfterKill`). */
const afterKillMs = 1_000;

/** Process groups still running, killed if operator itself exits first. */
const runningGroups = new Set<number>();
let exitHookInstalled = false;

/**
 * Runs the command and resolves once its output is closed (so background jobs that keep stdout
 * open are waited for, up to the timeout) or, after SIGKILL, once its output is closed or at most
 * a second after the process spawned has exited.
 * Rejects only when it cannot be started: the program cannot be spawned, or the network of its
 * own cannot be made (the command is then killed before it ran).
 */
export function runCommand(options: RunCommandOptions): Promise<CommandResult> {
  const killGraceMs = options.killGraceMs ?? 2_000;
  const maxOutputChars = options.maxOutputChars ?? 1_000_000;
  installExitHook();
  return new Promise((resolve, reject) => {
    const ownNetwork = options.spawn.ownNetwork;
    const program = ownNetwork ? ownNetworkCommand(options.spawn.file, options.spawn.args, ownNetwork) : options.spawn;
    const child = spawn(program.file, program.args, {
      cwd: options.spawn.cwd,
      env: options.spawn.env,
      detached: true,
      // A network of its own is handed over on three more descriptors (see own-network.ts).
      stdio: ['ignore', 'pipe', 'pipe', ...(ownNetwork ? ownNetworkStdio : [])],
    });
    const [childStdout, childStderr] = [child.stdout!, child.stderr!];
    const pid = child.pid;
    if (pid !== undefined) runningGroups.add(pid);
    const capture = (stream: NodeJS.ReadableStream, buffer: OutputBuffer) => {
      const decoder = new StringDecoder('utf8');
      stream.on('data', (chunk: Buffer) => {
        const text = decoder.write(chunk);
        if (text.length === 0) return;
        buffer.append(text);
        options.onOutput?.(text);
      });
      return () => buffer.append(decoder.end());
    };
    const stdout = new OutputBuffer(maxOutputChars);
    const stderr = new OutputBuffer(maxOutputChars);
    const flushStdout = capture(childStdout, stdout);
    const flushStderr = capture(childStderr, stderr);

    let timedOut = false;
    let aborted = false;
    let exited = false;
    let killSent = false;
    let settled = false;
    let killTimer: NodeJS.Timeout | undefined;
    let exitCode: number | null = null;
    let exitSignal: NodeJS.Signals | null = null;

    const signalGroup = (signal: NodeJS.Signals) => {
      if (pid === undefined) return;
      try {
        process.kill(-pid, signal);
      } catch {
        // ESRCH: every process of the group is gone already.
      }
    };
    const terminate = () => {
      if (killTimer !== undefined) return;
      signalGroup('SIGTERM');
      killTimer = setTimeout(() => {
        killSent = true;
        signalGroup('SIGKILL');
        if (exited) finishAfterKill();
      }, killGraceMs);
    };
    // Set when the network could not be made: the command, still held back, is killed and this is the answer.
    let networkFailure: Error | undefined;
    const network =
      ownNetwork && pid !== undefined
        ? attachOwnNetwork(child, ownNetwork, (error) => {
            // A command already being ended takes its network with it: that is no failure of the network.
            if (exited || timedOut || aborted) return;
            networkFailure = error;
            killSent = true;
            signalGroup('SIGKILL');
            // bwrap's own child, the sandbox's first process, is in a session of its own (out of
            // reach of the group's SIGKILL) and ends when bwrap does (--die-with-parent). It holds
            // the output pipes until then, so the answer waits for them to close: no process of the
            // sandbox is left when it comes. Nothing else holds them (the command never started);
            // should something still, the answer comes after the grace period all the same.
            setTimeout(finish, killGraceMs).unref();
          })
        : undefined;
    const timeoutTimer = setTimeout(() => {
      timedOut = true;
      terminate();
    }, options.timeoutMs);
    const onAbort = () => {
      aborted = true;
      terminate();
    };
    options.signal.addEventListener('abort', onAbort, { once: true });

    const cleanUp = () => {
      clearTimeout(timeoutTimer);
      options.signal.removeEventListener('abort', onAbort);
      // A SIGKILL still pending reaches members of the group that closed their output but ignore
      // SIGTERM; it must not keep operator alive.
      killTimer?.unref();
      if (pid !== undefined) runningGroups.delete(pid);
      network?.stop();
    };
    /**
     * After SIGKILL the answer waits for the output pipes to close, which they do once every
     * process of the group holding them is gone (a background job's exit closes them), so no
     * process of the command is left when it comes; a process that left the group (setsid) may
     * hold them longer, so the wait is bounded.
     */
    function finishAfterKill() {
      setTimeout(finish, afterKillMs).unref();
    }
    function finish() {
      if (settled) return;
      settled = true;
      cleanUp();
      flushStdout();
      flushStderr();
      // After SIGKILL a process that left the group (setsid) may still hold the pipes.
      childStdout.destroy();
      childStderr.destroy();
      if (networkFailure) reject(networkFailure);
      else resolve({ stdout: stdout.toString(), stderr: stderr.toString(), exitCode, exitSignal, timedOut, aborted, pid });
    }

    child.on('exit', (code, signal) => {
      exited = true;
      exitCode = code;
      exitSignal = signal;
      if (killSent && !networkFailure) finishAfterKill();
    });
    child.on('close', () => finish());
    child.on('error', (error) => {
      if (settled) return;
      settled = true;
      cleanUp();
      reject(error);
    });
    if (options.signal.aborted) onAbort();
  });
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const pid of runningGroups) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  });
}
