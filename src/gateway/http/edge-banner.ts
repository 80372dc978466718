/** The start-up banner's lines about the network edge: where the gateway listens, and the web login. */
import type { Exposure } from './resolve-exposure.ts';
import { hostAndPort, listenScope } from './listen-address.ts';
import { webTokenVariable, type WebTokenSource } from './web-token.ts';

/** What {@link edgeBanner} describes. */
export interface EdgeBannerOptions {
  host: string;
  port: number;
  exposure: Exposure;
  /** Where the login token is, when a login is required. */
  token?: WebTokenSource;
  /** Whether `dmPolicy.web` was configured (else it follows the exposure). */
  webPolicyConfigured: boolean;
}

/**
 * The lines, indented for the banner. Names where the token is, never the token.
 *
 * @example
 * edgeBanner({ host: '127.0.0.1', port: 8787, exposure, webPolicyConfigured: false });
 * // ['  listening on 127.0.0.1:8787 (this machine only)']
 */
export function edgeBanner(options: EdgeBannerOptions): string[] {
  const { exposure } = options;
  const login = exposure.loginRequired ? '; the web chat asks for a login' : '';
  const lines = [`  listening on ${hostAndPort(options.host, options.port)} (${listenScope(options.host)}${login})`];
  if (exposure.loginRequired) {
    lines.push(`  web login: required because ${exposure.loginBecause.join('; ')}`);
    if (options.token?.kind === 'environment') lines.push(`  web login token: the ${webTokenVariable} variable`);
    else if (options.token) lines.push(`  web login token: in ${options.token.path}${options.token.created ? ' (made now, readable by this user only)' : ''}`);
  }
  if (!options.webPolicyConfigured && exposure.webDmPolicy === 'pairing') {
    lines.push('  web chat access: pairing, as the gateway is exposed (a new browser gets a code; approve it with `operator pairing approve CODE`)');
  }
  return lines;
}
