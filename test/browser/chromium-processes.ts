/**
 * The processes of the browsers a process started, as /proc shows them from outside: what
 * chromium was given (its arguments and environment) and what it runs inside (bubblewrap, its
 * own sandbox, its PID namespace and its view of the filesystem).
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** One process, as read from /proc. */
export interface ProcessView {
  pid: number;
  ppid: number;
  /** The short name (`chromium`, `bwrap`, `sh`). */
  comm: string;
  /**
   * Its arguments, split at spaces too: chromium's child processes rewrite their command line
   * into one string (`/usr/lib/chromium/chromium --type=renderer ...`).
   */
  argv: string[];
  /** Its environment block as written (`NAME=value` entries separated by NUL). */
  environ: string;
  /** `Seccomp:` of its status: 0 none, 2 a filter (chromium's sandbox puts renderers under one). */
  seccomp: number;
  /** Its PID namespace (`pid:[4026531836]`). */
  pidNamespace: string;
}

function read(pid: number): ProcessView | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // `pid (comm) state ppid ...`: the name may hold spaces and parentheses, so split at the last ')'.
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const ppid = Number(stat.slice(close + 2).split(' ')[1]);
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split(/[\0 ]/).filter(Boolean);
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
    const seccomp = Number(/^Seccomp:\s*(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    return { pid, ppid, comm, argv, environ, seccomp, pidNamespace: readlinkSync(`/proc/${pid}/ns/pid`) };
  } catch {
    // It ended while being read.
    return undefined;
  }
}

/** Every process below `root` (children, their children, ...), read now. */
export function descendantsOf(root: number): ProcessView[] {
  const all = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => read(Number(name)))
    .filter((view) => view !== undefined);
  const below = new Set([root]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const view of all) {
      if (below.has(view.ppid) && !below.has(view.pid)) {
        below.add(view.pid);
        grew = true;
      }
    }
  }
  return all.filter((view) => view.pid !== root && below.has(view.pid));
}

/** Whether `view` is a chromium process (the browser, its zygotes, renderers, helpers). */
export function isChromium(view: ProcessView): boolean {
  return /chrom/.test(view.comm) || /chrom/.test(view.argv[0] ?? '');
}

/** The chromium processes below `root`, each with whether a bubblewrap process is among its ancestors. */
export function chromiumBelow(root: number): (ProcessView & { inBubblewrap: boolean })[] {
  const views = descendantsOf(root);
  const byPid = new Map(views.map((view) => [view.pid, view]));
  const inBubblewrap = (view: ProcessView): boolean => {
    for (let parent = byPid.get(view.ppid); parent; parent = byPid.get(parent.ppid)) if (parent.comm === 'bwrap') return true;
    return false;
  };
  return views.filter(isChromium).map((view) => ({ ...view, inBubblewrap: inBubblewrap(view) }));
}

/** This process's PID namespace. */
export function ownPidNamespace(): string {
  return readlinkSync('/proc/self/ns/pid');
}
