/**
 * The SDK's stdio transport, for a server started the way the command sandbox says: spawned from
 * a `SpawnSpec` (bubblewrap, or operator's child where none runs) instead of the SDK's own spawn,
 * which would hand the server `HOME`, `USER`, `SHELL` and `LOGNAME` of the gateway and start it
 * outside any sandbox. Messages are newline-delimited JSON-RPC (the SDK's `ReadBuffer`); the
 * server's stderr is kept (its last lines say why it stopped). Closing it ends the server's whole
 * process group: SIGTERM, then SIGKILL after a grace period; the sandbox's processes end with
 * bwrap (`--die-with-parent`), and every server ends when the gateway's process does.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { SpawnSpec } from '../sandbox/sandbox.ts';
import { attachOwnNetwork, ownNetworkCommand, ownNetworkStdio, type OwnNetwork } from '../sandbox/own-network.ts';

/** Characters of the server's stderr kept. */
const stderrTail = 2_000;

/** Process groups of servers still running, killed when the gateway's process exits. */
const running = new Set<number>();
let exitHook = false;

/** A server process spoken to over its stdin and stdout. */
export class SandboxedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #spec: SpawnSpec;
  readonly #killGraceMs: number;
  readonly #buffer = new ReadBuffer();
  #child: ChildProcess | undefined;
  #network: OwnNetwork | undefined;
  #stderr = '';
  #exit: string | undefined;
  #closed = false;

  constructor(spec: SpawnSpec, options: { killGraceMs?: number } = {}) {
    this.#spec = spec;
    this.#killGraceMs = options.killGraceMs ?? 2_000;
  }

  /** The server's process id (bwrap's, in the sandbox). */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** The end of what the server wrote to stderr. */
  get stderr(): string {
    return this.#stderr;
  }

  /** How the process ended (`exited with code 1`), once it has. */
  get exit(): string | undefined {
    return this.#exit;
  }

  start(): Promise<void> {
    if (this.#child) throw new Error('the transport is started already');
    installExitHook();
    const own = this.#spec.ownNetwork;
    const program = own ? ownNetworkCommand(this.#spec.file, this.#spec.args, own) : this.#spec;
    return new Promise((resolve, reject) => {
      // A group of its own, so that closing it ends what it started (without a sandbox too).
      const child = spawn(program.file, program.args, { cwd: this.#spec.cwd, env: this.#spec.env, detached: true, stdio: ['pipe', 'pipe', 'pipe', ...(own ? ownNetworkStdio : [])] });
      this.#child = child;
      const stdout = child.stdout as Readable;
      const stderr = child.stderr as Readable;
      const stdin = child.stdin as Writable;
      child.once('error', (error) => {
        this.#ended(`could not be started: ${error.message}`);
        reject(error);
      });
      child.once('spawn', () => {
        if (child.pid !== undefined) running.add(child.pid);
        if (own) {
          this.#network = attachOwnNetwork(child, own, (error) => {
            this.onerror?.(error);
            this.#kill('SIGKILL');
          });
        }
        resolve();
      });
      child.once('exit', (code, signal) => {
        const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
        this.#exit ??= how;
        // Its last words on stderr may still be on their way ('exit' can come first): told once the
        // pipe has closed, or a moment later should a process it left behind hold the pipe open.
        if (stderr.closed) return this.#ended(how);
        const told = () => {
          clearTimeout(late);
          this.#ended(how);
        };
        const late = setTimeout(told, 250);
        stderr.once('close', told);
      });
      stdin.on('error', (error) => this.onerror?.(error));
      stdout.on('data', (chunk: Buffer) => {
        this.#buffer.append(chunk);
        this.#drain();
      });
      stderr.setEncoding('utf8');
      stderr.on('data', (chunk: string) => (this.#stderr = (this.#stderr + chunk).slice(-stderrTail)));
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.#child?.stdin;
    if (!stdin || this.#exit !== undefined) return Promise.reject(new Error('the server is not running'));
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /** Ends the server: its stdin closed, SIGTERM to its group, SIGKILL after the grace period; resolves once it exited. */
  async close(): Promise<void> {
    const child = this.#child;
    if (!child || this.#exit !== undefined) {
      this.#ended(this.#exit ?? 'was closed');
      return;
    }
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.stdin?.end();
    this.#kill('SIGTERM');
    const timer = setTimeout(() => this.#kill('SIGKILL'), this.#killGraceMs);
    await exited;
    clearTimeout(timer);
  }

  #drain(): void {
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.#buffer.readMessage();
      } catch (error) {
        // A line that is not a JSON-RPC message (a server printing to stdout): reported, skipped.
        this.onerror?.(error instanceof Error ? error : new Error(String(error)));
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }

  #kill(signal: NodeJS.Signals): void {
    const pid = this.#child?.pid;
    if (pid === undefined || this.#exit !== undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // The group is gone already.
    }
  }

  #ended(reason: string): void {
    if (this.#exit === undefined) this.#exit = reason;
    const pid = this.#child?.pid;
    if (pid !== undefined) running.delete(pid);
    this.#network?.stop();
    this.#buffer.clear();
    if (this.#closed) return;
    this.#closed = true;
    this.onclose?.();
  }
}

/** Kills every server still running when the process exits (a sandboxed one would end with bwrap anyway). */
function installExitHook(): void {
  if (exitHook) return;
  exitHook = true;
  process.once('exit', () => {
    for (const pid of running) {
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
  });
}
