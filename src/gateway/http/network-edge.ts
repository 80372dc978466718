/**
 * The network edge as middleware for the gateway's HTTP server: the host check, the origin check
 * and, when the web chat needs one, its login, in that order, in front of every route.
 */
import type { MiddlewareHandler } from 'hono';
import type { GatewayConfig } from '../config/index.ts';
import { hostGuard } from './host-guard.ts';
import { createHostRule } from './host-rule.ts';
import { originGuard } from './origin-guard.ts';
import { webLogin } from './web-login.ts';

/** Options of {@link networkEdge}. */
export interface NetworkEdgeOptions {
  config: Pick<GatewayConfig, 'host' | 'port' | 'publicHosts' | 'telegram'>;
  /** The web chat's login token; without it the web chat asks for no login. */
  webToken?: string;
  /** Where notable refusals are reported (never a token). */
  log?: (line: string) => void;
}

/**
 * The edge's middleware, to run before every route.
 *
 * @example
 * const app = createGatewayApp(adapters, health, [control], networkEdge({ config, webToken }));
 */
export function networkEdge(options: NetworkEdgeOptions): MiddlewareHandler[] {
  const { config } = options;
  const allows = createHostRule({ listenHost: config.host, publicHosts: config.publicHosts, webhookUrl: config.telegram.webhookUrl });
  const edge = [hostGuard(allows), originGuard(allows)];
  if (options.webToken !== undefined) edge.push(webLogin({ token: options.webToken, port: config.port, log: options.log }));
  return edge;
}
