/**
 * The CPU time the chaos run's gateway processes used, sampled from `/proc/<pid>/stat` while they
 * live: the evidence of whether a process ran after a platform answered it, taken from the process
 * itself. The fake platform's own clock cannot tell this on a saturated machine: the fake, starved
 * too, may take calls a process wrote long before, one by one, after the answer went out.
 */
import { readFileSync } from 'node:fs';

/** Clock ticks per second of `/proc/<pid>/stat`'s times (Linux's USER_HZ, 100 on every common build). */
const ticksPerSecond = 100;

/** One reading of a process's CPU time. */
interface CpuSample {
  at: number;
  pid: number;
  cpuMs: number;
}

/** The user and system CPU time of process `pid` in ms, or undefined where `/proc` cannot tell (gone, not Linux). */
export function processCpuMs(pid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (in parentheses) may hold spaces; the fields after it are fixed: utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return Number.isFinite(utime) && Number.isFinite(stime) ? ((utime + stime) * 1000) / ticksPerSecond : undefined;
}

/** Samples of the gateway process alive at each moment of a run (one process at a time). */
export class ProcessCpu {
  readonly #samples: CpuSample[] = [];
  #pid: number | undefined;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly everyMs = 10) {}

  /** From now on samples `pid` (the process just started), until {@link stop} or the next `follow`. */
  follow(pid: number): void {
    this.#pid = pid;
    this.sample();
    this.#timer ??= setInterval(() => this.sample(), this.everyMs);
    this.#timer.unref();
  }

  /** Takes a sample now (call it right before a kill: the last reading of the dying process). */
  sample(): void {
    if (this.#pid === undefined) return;
    const cpuMs = processCpuMs(this.#pid);
    if (cpuMs !== undefined) this.#samples.push({ at: Date.now(), pid: this.#pid, cpuMs });
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#pid = undefined;
  }

  /**
   * At least how much CPU time (ms) the process alive at `to` used from `from` to `to`, as far as
   * the samples between the two show (0 with fewer than two); undefined when nothing was sampled
   * at all (no `/proc`).
   */
  usedBetween(from: number, to: number): number | undefined {
    if (this.#samples.length === 0) return undefined;
    const within = this.#samples.filter((sample) => sample.at >= from && sample.at <= to);
    const last = within.at(-1);
    if (last === undefined) return 0;
    const own = within.filter((sample) => sample.pid === last.pid);
    return last.cpuMs - own[0]!.cpuMs;
  }
}
