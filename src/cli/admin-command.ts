/**
 * `operator admin url`: prints a link that logs into the admin console: the running gateway's
 * address (from OPERATOR_HOME/gateway.json), else the configured one, with the admin token in the
 * link's fragment (which the browser never sends to a server). The token is read from
 * OPERATOR_ADMIN_TOKEN or OPERATOR_HOME/admin-token, and made there if there is none yet.
 */
import { loadAdminToken } from '../gateway/admin/admin-token.ts';
import { loadConfig } from '../gateway/config/index.ts';
import { isProcessRunning, readControlFile } from '../gateway/control/control-file.ts';
import { webChatUrl } from '../gateway/http/listen-address.ts';
import { operatorHome } from '../store/from-env.ts';
import { parseCommandArgs, UsageError } from './cli-options.ts';

/** The usage text of `operator admin`. */
export const adminUsage = [
  'operator admin url [--base URL]',
  '',
  '  url          print a link that logs into the admin console (it holds the admin token: keep it to yourself)',
  '  --base URL   the address the browser reaches the gateway at, e.g. https://bot.example.com',
  '               (default: the running gateway\'s, else the configured host and port)',
].join('\n');

/** Runs `operator admin <subcommand>`; resolves to the exit code (throws a UsageError for bad arguments). */
export async function runAdminCommand(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const { values, positionals } = parseCommandArgs(args, { base: { type: 'string' } });
  const [subcommand, ...rest] = positionals;
  if (subcommand !== 'url') throw new UsageError(subcommand === undefined ? 'operator admin needs a subcommand' : `unknown subcommand "${subcommand}"`);
  if (rest.length > 0) throw new UsageError(`url takes no arguments besides --base, not "${rest.join(' ')}"`);
  const base = values.base === undefined ? await gatewayBase(env) : explicitBase(values.base);
  const { token } = await loadAdminToken(env, operatorHome(env));
  process.stdout.write(`${base.url}/admin/login#token=${encodeURIComponent(token)}\n`);
  if (base.note) process.stderr.write(`${base.note}\n`);
  return 0;
}

/** `--base` as an origin (and path prefix) without a trailing slash. */
function explicitBase(text: string): { url: string; note?: string } {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new UsageError(`--base takes an http or https address, e.g. https://bot.example.com, not "${text}"`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash || url.username || url.password) {
    throw new UsageError(`--base takes an http or https address without query, fragment or credentials, not "${text}"`);
  }
  return { url: `${url.origin}${url.pathname.replace(/\/+$/, '')}` };
}

/** The running gateway's address, else the configured one (with a note saying the gateway is not running). */
async function gatewayBase(env: NodeJS.ProcessEnv): Promise<{ url: string; note?: string }> {
  const file = await readControlFile(operatorHome(env));
  if (file && isProcessRunning(file.pid)) {
    // As the start-up banner names it: a loopback address as localhost.
    const url = new URL(file.url);
    if (url.hostname === '127.0.0.1' || url.hostname === '[::1]') url.hostname = 'localhost';
    return { url: url.origin };
  }
  const { config } = loadConfig(env);
  const host = config.host.replace(/^\[(.*)\]$/, '$1');
  return { url: webChatUrl(host, config.port).replace(/\/+$/, ''), note: 'No gateway is running now: the link works once `operator start` runs with this configuration.' };
}
