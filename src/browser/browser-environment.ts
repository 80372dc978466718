/**
 * The environment chromium starts with. A page that finds a renderer bug can read its process's
 * environment (`/proc/self/environ`, in any encoding it likes), so chromium gets an allowlist, as
 * commands do: the search path, the locale and the terminal's variables (see `safeEnv`), the
 * proxy settings when they hold no password, the display only when it has a window, and a home
 * and XDG folders of its own. No variable of the gateway's own is passed on.
 */
import { safeEnv } from '../tools/safe-env.ts';

/** Proxy variables chromium reads on Linux; one holding a password stays withheld (see `isSecretEnv`). */
const proxyNames = ['http_proxy', 'https_proxy', 'no_proxy', 'all_proxy', 'HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'ALL_PROXY'];

/** What chromium's environment depends on besides the gateway's. */
export interface BrowserEnvironmentOptions {
  /** Whether chromium shows a window (then it gets `DISPLAY` and `XAUTHORITY`). */
  headed: boolean;
  /** The folder chromium's HOME and XDG folders are made in (private to the browser). */
  home: string;
}

/**
 * The variables operator adds to the allowlisted ones: the private home and XDG folders, and the
 * display when headed. Kept apart from {@link browserEnvironment} because the bubblewrap sandbox
 * builds the allowlisted part itself.
 */
export function browserExtras(env: NodeJS.ProcessEnv, options: BrowserEnvironmentOptions): Record<string, string> {
  const { home } = options;
  const extras: Record<string, string> = { HOME: home, XDG_CONFIG_HOME: `${home}/.config`, XDG_CACHE_HOME: `${home}/.cache`, XDG_DATA_HOME: `${home}/.local/share` };
  if (options.headed) {
    if (env.DISPLAY) extras.DISPLAY = env.DISPLAY;
    if (env.XAUTHORITY) extras.XAUTHORITY = env.XAUTHORITY;
  }
  return extras;
}

/** The names beyond `safeEnv`'s allowlist that chromium gets when they are not secret. */
export const browserEnvNames: readonly string[] = proxyNames;

/**
 * Chromium's whole environment outside bubblewrap.
 *
 * @example
 * chromium.launch({ executablePath, env: browserEnvironment(process.env, { headed: false, home: '/tmp/operator-browser-x/home' }) });
 */
export function browserEnvironment(env: NodeJS.ProcessEnv, options: BrowserEnvironmentOptions): Record<string, string> {
  return { ...safeEnv(env, browserEnvNames), ...browserExtras(env, options) };
}
