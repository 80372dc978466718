/**
 * Whether the gateway is *exposed*, whether its web chat needs a login, and the web chat's
 * direct-message policy. Exposed means the internet may reach it: it listens beyond loopback, or
 * a reverse proxy or tunnel forwards to it (public host names, webhooks), and such a forwarder
 * makes every request look local, so the listening address alone cannot tell.
 */
import type { GatewayConfig } from '../config/index.ts';
import type { DmPolicy } from '../config/schema.ts';
import { canonicalHost, isLoopbackHost, isWildcardAddress } from './host-name.ts';

/** The verdict of {@link resolveExposure}; the reasons are phrases for the start-up banner. */
export interface Exposure {
  exposed: boolean;
  /** Why it is exposed, e.g. `it listens on 0.0.0.0 (every interface)`; empty when local. */
  exposedBecause: string[];
  /** Whether the web chat asks for a login. */
  loginRequired: boolean;
  /** Why it asks for one; empty when it does not. */
  loginBecause: string[];
  /** The web chat's direct-message policy: as configured, else `pairing` when exposed, `open` when local. */
  webDmPolicy: DmPolicy;
}

/** What brings requests from the internet besides the listening address. */
export interface ExposureSources {
  /** Webhook sources the gateway receives, as phrases: `Telegram webhooks`, `Slack HTTP events`. */
  webhooks: readonly string[];
  /**
   * Whether sandboxed commands with the network on get a network namespace of their own
   * (slirp4netns is installed, see `detectSlirp4netns`), where this machine's loopback is out of
   * reach. Default false: they share this machine's network.
   */
  ownCommandNetwork?: boolean;
}

/** The settings {@link resolveExposure} reads. */
export type ExposureConfig = Pick<GatewayConfig, 'host' | 'publicHosts' | 'web' | 'tools' | 'sandbox' | 'dmPolicy'>;

/**
 * Resolves the exposure of `config`. A login is required when exposed; when a grant gives `shell`
 * to people other than the owner while sandboxed commands share this machine's network (such a
 * command could reach the loopback web chat, which is otherwise the owner's seat; a network of
 * their own, `sources.ownCommandNetwork`, cannot); and when `web.login` is `always`.
 *
 * @example
 * const exposure = resolveExposure(config, { webhooks: webhookSources(process.env, config) });
 * if (exposure.loginRequired) console.log(`web login required: ${exposure.loginBecause.join('; ')}`);
 */
export function resolveExposure(config: ExposureConfig, sources: ExposureSources): Exposure {
  const exposedBecause: string[] = [];
  const host = canonicalHost(config.host) ?? config.host;
  if (isWildcardAddress(host)) exposedBecause.push(`it listens on ${config.host} (every interface)`);
  else if (!isLoopbackHost(host)) exposedBecause.push(`it listens on ${config.host}, beyond this machine`);
  if (config.publicHosts.length > 0) exposedBecause.push(`publicHosts names ${config.publicHosts.join(', ')}`);
  for (const webhook of sources.webhooks) exposedBecause.push(`it receives ${webhook}`);
  const exposed = exposedBecause.length > 0;

  const loginBecause = [...exposedBecause];
  if (grantsNetworkedShell(config) && sources.ownCommandNetwork !== true) loginBecause.push("a grant gives shell to others, and sandboxed commands share this machine's network (sandbox.network; slirp4netns would give them their own)");
  if (config.web.login === 'always') loginBecause.push('web.login is "always"');

  return {
    exposed,
    exposedBecause,
    loginRequired: loginBecause.length > 0,
    loginBecause,
    webDmPolicy: config.dmPolicy.web ?? (exposed ? 'pairing' : 'open'),
  };
}

function grantsNetworkedShell(config: ExposureConfig): boolean {
  if (config.sandbox.mode === 'off' || !config.sandbox.network) return false;
  return config.tools.grants.some((grant) => grant.tools === 'all' || grant.tools.includes('shell'));
}

/**
 * The webhook sources of a configuration: Telegram's webhook mode (`telegram.webhookUrl`) and
 * Slack's HTTP events (`SLACK_BOT_TOKEN` with `SLACK_SIGNING_SECRET`).
 */
export function webhookSources(env: NodeJS.ProcessEnv, config: Pick<GatewayConfig, 'telegram'>): string[] {
  const sources: string[] = [];
  if (config.telegram.webhookUrl) sources.push('Telegram webhooks');
  if (env.SLACK_BOT_TOKEN?.trim() && env.SLACK_SIGNING_SECRET?.trim()) sources.push('Slack HTTP events');
  return sources;
}
