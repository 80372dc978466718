/**
 * Starts chromium through Playwright in the isolation chosen for this machine (see
 * `browser-isolation.ts`), always with an allowlisted environment and downloads in the pool's
 * own folder.
 *
 * In bubblewrap, Playwright is given a small script as the browser's executable: it runs
 * `bwrap ... chromium "$@"` with the command sandbox's view of the system (`Sandbox.programSpec`)
 * plus what chromium needs (fonts, its settings in /etc), the downloads folder and the profile
 * folder Playwright made writable, and nothing of OPERATOR_HOME or any home folder. Playwright
 * talks to chromium over the pipes on descriptors 3 and 4, which bwrap passes on. Inside,
 * chromium's own sandbox runs too when user namespaces may be nested (as root, chromium runs as
 * an unprivileged user of a user namespace of its own); where that is refused, chromium runs
 * inside bubblewrap with `--no-sandbox`.
 */
import { realpathSync } from 'node:fs';
import { chmod, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { Browser } from 'playwright-core';
import { isInside } from '../guardrails/real-path.ts';
import { createBubblewrapSandbox } from '../tools/sandbox/bubblewrap-sandbox.ts';
import { defaultSandboxSettings } from '../tools/sandbox/sandbox.ts';
import { browserEnvNames, browserEnvironment, browserExtras } from './browser-environment.ts';
import { chromiumFeatureSwitches } from './chromium-features.ts';
import type { BrowserIsolation } from './browser-isolation.ts';

/** What one launch needs. */
export interface ChromiumLaunch {
  executablePath: string;
  headless: boolean;
  isolation: BrowserIsolation;
  /** The gateway's environment, of which chromium gets the allowlisted part. */
  env: NodeJS.ProcessEnv;
  /** Folders bubblewrap never shows (OPERATOR_HOME). */
  hidden: readonly string[];
  /** The pool's private folder (0700): the wrapper script, `downloads/` and, outside bubblewrap, `home/`. */
  folder: string;
  /** In bubblewrap: whether to run chromium's own sandbox inside it (false once it was refused here). */
  innerSandbox: boolean;
}

/** A running chromium, and whether chromium's own sandbox runs in it. */
export interface LaunchedChromium {
  browser: Browser;
  /** Chromium's own sandbox (namespaces and seccomp for renderers) is on. */
  chromiumSandbox: boolean;
}

/** The user chromium runs as inside bubblewrap's user namespace when operator is root. */
const sandboxUid = '1000';

/**
 * What chromium says when its sandbox cannot start, and what bubblewrap says when it may not make
 * the user namespace chromium's sandbox would run in: either way, user namespaces are refused.
 */
const sandboxRefused = /No usable sandbox|bwrap: .*(namespace|uid map|gid map)/i;

/** Tells the wrapper scripts of launches running at once apart. */
let launches = 0;

/** Folders chromium reads beyond the system view: fonts, the font cache, Debian's chromium settings and policies. */
const chromiumReadOnly = ['/etc/fonts', '/var/cache/fontconfig', '/etc/chromium', '/etc/chromium.d'];

/** Where the X server's sockets are, for a headed browser. */
const xSockets = '/tmp/.X11-unix';

/**
 * Launches chromium for `request`. In bubblewrap with `innerSandbox`, a launch that fails because
 * chromium's sandbox is refused is tried once more without it (still in bubblewrap).
 *
 * @throws Error with Playwright's message when chromium does not start.
 */
export async function launchChromium(request: ChromiumLaunch): Promise<LaunchedChromium> {
  const { chromium } = await import('playwright-core');
  const downloadsPath = join(request.folder, 'downloads');
  // No address-bar popups built as web pages in every context (see chromium-features.ts).
  const common = { headless: request.headless, timeout: 30_000, downloadsPath, args: chromiumFeatureSwitches() };
  const { isolation } = request;
  if (isolation.kind !== 'bubblewrap') {
    const chromiumSandbox = isolation.kind === 'chromium-sandbox';
    const env = browserEnvironment(request.env, { headed: !request.headless, home: join(request.folder, 'home') });
    return { browser: await chromium.launch({ ...common, executablePath: request.executablePath, env, chromiumSandbox }), chromiumSandbox };
  }
  const attempt = async (inner: boolean): Promise<LaunchedChromium> => {
    const wrapper = await writeWrapper(request, isolation.bwrap, downloadsPath, inner);
    try {
      const browser = await chromium.launch({ ...common, executablePath: wrapper.path, env: wrapper.env, chromiumSandbox: inner });
      return { browser, chromiumSandbox: inner };
    } finally {
      // bwrap has replaced the script's shell by now: the file is needed no more.
      await rm(wrapper.path, { force: true });
    }
  };
  if (!request.innerSandbox) return attempt(false);
  try {
    return await attempt(true);
  } catch (error) {
    if (!(error instanceof Error) || !sandboxRefused.test(error.message)) throw error;
    return attempt(false);
  }
}

/** Writes the script Playwright runs as chromium; returns its path and the environment to start it with. */
async function writeWrapper(request: ChromiumLaunch, bwrap: string, downloads: string, inner: boolean): Promise<{ path: string; env: Record<string, string> }> {
  const headed = !request.headless;
  const sandbox = createBubblewrapSandbox({ bwrap, settings: { ...defaultSandboxSettings, env: browserEnvNames }, hidden: request.hidden, env: request.env });
  const spec = sandbox.programSpec({
    argv: [request.executablePath],
    cwd: '/',
    writable: [downloads],
    readOnly: [...chromiumReadOnly, ...installFolder(request.executablePath), ...(headed ? [xSockets, ...(request.env.XAUTHORITY ? [request.env.XAUTHORITY] : [])] : [])],
    network: true,
    // HOME and TMPDIR are the sandbox's private /tmp; the XDG folders go there too.
    env: browserExtras(request.env, { headed, home: '/tmp' }),
  });
  const own = inner ? ['--unshare-user', ...(process.getuid?.() === 0 ? ['--uid', sandboxUid, '--gid', sandboxUid] : [])] : [];
  const args = [...own, ...spec.args];
  // The profile folder is Playwright's, made at each launch: the script binds what it is given.
  // It goes just before the root is made read-only, so its mount point can still be made.
  const at = args.findIndex((arg, index) => arg === '--remount-ro' && args[index + 1] === '/');
  if (at < 0) throw new Error('the bubblewrap command line has no --remount-ro / to place the profile folder before');
  const script = [
    '#!/bin/sh',
    '# Made by operator: runs chromium inside bubblewrap, binding the profile folder Playwright names.',
    'profile=',
    'for argument in "$@"; do',
    '  case $argument in --user-data-dir=/*) profile=${argument#--user-data-dir=} ;; esac',
    'done',
    'if [ -z "$profile" ]; then echo "operator: chromium was started without --user-data-dir" >&2; exit 64; fi',
    `exec ${[spec.file, ...args.slice(0, at)].map(quote).join(' ')} --bind "$profile" "$profile" ${args.slice(at).map(quote).join(' ')} "$@"`,
    '',
  ].join('\n');
  const path = join(request.folder, `chromium-in-bubblewrap-${++launches}.sh`);
  await writeFile(path, script, { mode: 0o700 });
  await chmod(path, 0o700);
  return { path, env: spec.env };
}

/** The folder of a chromium installed outside /usr (Playwright's own, /opt/...), which the sandbox must show. */
function installFolder(executable: string): string[] {
  try {
    const real = realpathSync(executable);
    return isInside('/usr', real) ? [] : [dirname(real)];
  } catch {
    return [];
  }
}

/** `value` as one word for /bin/sh. */
function quote(value: string): string {
  return `'${value.replaceAll("'", "'\\''")}'`;
}
