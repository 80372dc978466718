/**
 * How the agent's chromium is kept apart from the gateway. A page is untrusted code: with a
 * renderer bug it runs as the browser's user, so the browser must not run with the gateway's
 * secrets or its files in reach. In order of preference:
 *
 * - `bubblewrap`: chromium runs inside bubblewrap (its own PID and IPC namespaces, the system's
 *   programs read-only, no OPERATOR_HOME, no home folder), with chromium's own sandbox inside it
 *   where user namespaces allow; as root that is the only way chromium's sandbox can run at all.
 * - `chromium-sandbox`: no bubblewrap, but operator is not root and user namespaces are on, so
 *   chromium's own sandbox (namespaces and seccomp for every renderer) works.
 * - `none`: neither (root without bubblewrap, or user namespaces off): chromium runs with
 *   `--no-sandbox`, and the browser is offered in the owner's own conversations only.
 *
 * Every mode gives chromium an allowlisted environment (see `browser-environment.ts`).
 */
import { readFileSync } from 'node:fs';
import { createBubblewrapSandbox } from '../tools/sandbox/bubblewrap-sandbox.ts';
import { detectBubblewrap } from '../tools/sandbox/detect-bubblewrap.ts';
import { defaultSandboxSettings } from '../tools/sandbox/sandbox.ts';

/** Where the browser runs, as decided by {@link chooseBrowserIsolation}. */
export type BrowserIsolation =
  | { kind: 'bubblewrap'; bwrap: string }
  | { kind: 'chromium-sandbox' }
  | { kind: 'none'; reason: string };

/** What {@link chooseBrowserIsolation} looks at. */
export interface BrowserIsolationOptions {
  /** The gateway's environment (`bwrap` is looked for on its PATH). */
  env: NodeJS.ProcessEnv;
  /** Folders bubblewrap never shows (OPERATOR_HOME). */
  hidden: readonly string[];
  /** The `bwrap` executable instead of the one on PATH (a missing path means none is installed). */
  bwrap?: string;
  /** The user operator runs as (default: this process's). */
  uid?: number;
  /** Whether unprivileged user namespaces are on (default: read from /proc/sys). */
  userNamespaces?: () => boolean;
}

/**
 * The strongest isolation that works here: bubblewrap when one real sandbox starts with it (the
 * same probe as the command sandbox's, cached per process), else chromium's own sandbox when
 * not root and user namespaces are on, else none, with the reason.
 *
 * @example
 * const isolation = chooseBrowserIsolation({ env: process.env, hidden: [operatorHome] });
 * describeBrowserIsolation(isolation); // "in bubblewrap, with chromium's own sandbox inside where it works"
 */
export function chooseBrowserIsolation(options: BrowserIsolationOptions): BrowserIsolation {
  const detection = detectBubblewrap({
    bwrap: options.bwrap,
    searchPath: options.env.PATH,
    // The command sandbox's default probe, so a gateway with default settings runs it once.
    probe: (bwrap) =>
      createBubblewrapSandbox({ bwrap, settings: defaultSandboxSettings, hidden: options.hidden, env: options.env }).spawnSpec({ shell: '/bin/sh', command: 'exit 0', cwd: '/', writable: [] }),
  });
  if (detection.found) return { kind: 'bubblewrap', bwrap: detection.bwrap };
  const uid = options.uid ?? process.getuid?.() ?? 0;
  const namespaces = (options.userNamespaces ?? userNamespacesOn)();
  if (uid !== 0 && namespaces) return { kind: 'chromium-sandbox' };
  const why = uid === 0 ? 'operator runs as root, where chromium refuses its own sandbox' : 'user namespaces are off, which chromium\'s own sandbox needs';
  return { kind: 'none', reason: `${why}, and ${detection.reason}` };
}

/** One line on the isolation, for the start-up output and `operator doctor`. */
export function describeBrowserIsolation(isolation: BrowserIsolation): string {
  switch (isolation.kind) {
    case 'bubblewrap':
      return "in bubblewrap, with chromium's own sandbox inside where user namespaces allow; an allowlisted environment";
    case 'chromium-sandbox':
      return "with chromium's own sandbox; an allowlisted environment";
    case 'none':
      return `WITHOUT a sandbox (${isolation.reason}); an allowlisted environment; the browser is offered in the owner's own conversations only`;
  }
}

/**
 * Whether this kernel lets an unprivileged process make a user namespace, which chromium's
 * sandbox needs on Linux (elsewhere it needs none).
 */
function userNamespacesOn(): boolean {
  if (process.platform !== 'linux') return true;
  const read = (file: string) => {
    try {
      return readFileSync(file, 'utf8').trim();
    } catch {
      return undefined;
    }
  };
  // Debian's older kernels' switch, the namespace limit, and Ubuntu's AppArmor restriction.
  if (read('/proc/sys/kernel/unprivileged_userns_clone') === '0') return false;
  if (read('/proc/sys/user/max_user_namespaces') === '0') return false;
  return read('/proc/sys/kernel/apparmor_restrict_unprivileged_userns') !== '1';
}
