/**
 * The real gateway as a benchmark drives it: `node bin/operator.js start` in its own process, on
 * a port chosen beforehand (Telegram's webhook URL must name it before the gateway starts), with
 * helpers to wait for it, read its resident memory and CPU time from /proc, and stop it.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compiledIsCurrent } from '../bin/compiled.js';
import { elapsedMs } from './lib.ts';

export const root = fileURLToPath(new URL('..', import.meta.url));

/** What the heap probe reports (bytes): `process.memoryUsage()` after a full GC, plus V8's own figures. */
export type ProbedMemory = NodeJS.MemoryUsage & {
  /** Resident bytes of V8's heap pages. */
  physicalHeap: number;
  /** Bytes V8 itself allocated with malloc. */
  mallocedByV8: number;
  /** Native contexts (realms) alive. */
  contexts: number;
  /** Whether the GC ran (the process had --expose-gc). */
  collected: boolean;
};

/** A gateway process being benchmarked. */
export interface GatewayProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly port: number;
  readonly url: string;
  /** `process.hrtime.bigint()` at spawn. */
  readonly spawnedAt: bigint;
  /** Everything the process wrote so far (stdout and stderr). */
  output(): string;
  /** Resolves when the start-up banner is out: the HTTP server listens and every channel has started. */
  ready(timeoutMs?: number): Promise<void>;
  /**
   * With `heapProbe`: a full garbage collection in the gateway, then its memory figures (bytes).
   * Rejects without the probe (SIGUSR2 would end the process).
   */
  memory(): Promise<ProbedMemory>;
  /** SIGTERM (lets turns in flight finish), then waits for the exit. */
  stop(): Promise<number | null>;
}

/** A TCP port that was free a moment ago (the kernel picks it; the listener is closed again). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const heapProbe = join(root, 'bench', 'gateway-heap-probe.mjs');
const probeMarker = 'gateway-heap-probe ';

/**
 * Spawns `node [nodeArgs] bin/operator.js start` with exactly `env` (plus PATH and PORT), `node`
 * being this process's own binary unless another is named.
 * `heapProbe` adds `--expose-gc --import bench/gateway-heap-probe.mjs` (see {@link GatewayProcess.memory}).
 */
export function spawnGateway(options: { port: number; env: Record<string, string>; nodeArgs?: string[]; heapProbe?: boolean; node?: string }): GatewayProcess {
  const spawnedAt = process.hrtime.bigint();
  const probeArgs = options.heapProbe ? ['--expose-gc', '--import', heapProbe] : [];
  const child = spawn(options.node ?? process.execPath, [...probeArgs, ...(options.nodeArgs ?? []), join(root, 'bin', 'operator.js'), 'start'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', ...options.env, PORT: String(options.port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const listeners = new Set<() => void>();
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    for (const listener of [...listeners]) listener();
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  return {
    child,
    pid: child.pid!,
    port: options.port,
    url: `http://127.0.0.1:${options.port}`,
    spawnedAt,
    output: () => output,
    ready(timeoutMs = 15_000) {
      return new Promise<void>((resolve, reject) => {
        const done = (error?: Error) => {
          clearTimeout(timer);
          listeners.delete(check);
          if (error) reject(error);
          else resolve();
        };
        const check = () => {
          if (output.includes('operator is running')) done();
        };
        const timer = setTimeout(() => done(new Error(`gateway not ready within ${timeoutMs} ms:\n${output}`)), timeoutMs);
        void exited.then((code) => done(new Error(`gateway exited with ${code} before it was ready:\n${output}`)));
        listeners.add(check);
        check();
      });
    },
    memory() {
      if (!options.heapProbe) return Promise.reject(new Error('spawned without the heap probe'));
      const before = output.lastIndexOf(probeMarker);
      return new Promise((resolve, reject) => {
        const check = () => {
          const at = output.lastIndexOf(probeMarker);
          const end = output.indexOf('\n', at);
          if (at === before || end < 0) return;
          clearTimeout(timer);
          listeners.delete(check);
          resolve(JSON.parse(output.slice(at + probeMarker.length, end)) as ProbedMemory);
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error('the gateway did not answer the heap probe within 10 s'));
        }, 10_000);
        listeners.add(check);
        child.kill('SIGUSR2');
      });
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** Milliseconds from the spawn to the first 200 from `/healthz`, polling every millisecond or so. */
export async function timeToHealthy(gateway: GatewayProcess, timeoutMs = 15_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (gateway.child.exitCode !== null) throw new Error(`gateway exited with ${gateway.child.exitCode}:\n${gateway.output()}`);
    const ok = await fetch(`${gateway.url}/healthz`).then(
      async (response) => {
        await response.arrayBuffer();
        return response.status === 200;
      },
      () => false,
    );
    if (ok) return elapsedMs(gateway.spawnedAt);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  throw new Error(`gateway not healthy within ${timeoutMs} ms:\n${gateway.output()}`);
}

/** Resident memory of a process in KB (`VmRSS` of /proc/<pid>/status). */
export function residentKb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
}

/** CPU time (user + system) a process has used so far, in ms (/proc/<pid>/stat, clock ticks of 10 ms). */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Busy and total CPU time of the whole machine so far, in ms (/proc/stat). */
export function machineCpuMs(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
  const ticks = line.trim().split(/\s+/).slice(1).map(Number);
  const total = ticks.reduce((sum, value) => sum + value, 0);
  const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
  return { busy: (total - idle) * 10, total: total * 10 };
}

/** Whether bin/operator.js runs the compiled dist/ (its stamp is at least as new as every source), as it decides. */
export function compiledIsFresh(): boolean {
  return compiledIsCurrent(root);
}

/** A plain node:http client over kept-alive connections (lighter than fetch, so the benchmark's own CPU stays small). */
export function createHttpClient(base: string, maxSockets: number, options: { keepAlive?: boolean } = {}): {
  request(method: string, path: string, headers?: Record<string, string>, body?: string): Promise<number>;
  close(): void;
} {
  const agent = new Agent({ keepAlive: options.keepAlive ?? true, maxSockets });
  return {
    request(method, path, headers = {}, body) {
      return new Promise<number>((resolve, reject) => {
        const request = httpRequest(`${base}${path}`, { method, headers, agent }, (response) => {
          response.resume();
          response.once('end', () => resolve(response.statusCode ?? 0));
          response.once('error', reject);
        });
        request.once('error', reject);
        request.end(body);
      });
    },
    close: () => agent.destroy(),
  };
}

/** CPU time (ms) of this process and every process it started (the gateway, the fakes), from /proc. */
export function ownCpuMs(): number {
  const children = new Map<number, number[]>();
  const cpu = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const pid = Number(entry);
    const parent = Number(fields[1]);
    children.set(parent, [...(children.get(parent) ?? []), pid]);
    cpu.set(pid, (Number(fields[11]) + Number(fields[12])) * 10);
  }
  let total = 0;
  const pending = [process.pid];
  while (pending.length > 0) {
    const pid = pending.pop()!;
    total += cpu.get(pid) ?? 0;
    pending.push(...(children.get(pid) ?? []));
  }
  return total;
}

/** Sockets a process holds open (listening ones included). */
export function openSockets(pid: number): number {
  let sockets = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:')) sockets++;
    } catch {
      // closed meanwhile
    }
  }
  return sockets;
}
