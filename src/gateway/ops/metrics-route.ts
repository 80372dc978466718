/**
 * `GET /metrics`: the Prometheus text, for a scraper holding a bearer token: the admin token, or
 * `OPERATOR_METRICS_TOKEN` (a token that can read metrics and nothing else, for a scraper's
 * configuration). Anything else gets 401 and learns nothing; wrong tokens count like a login's
 * (`bearer-gate.ts`: 5 in 15 minutes per client, then 429). A right one does not forget a
 * client's wrong ones, as two secrets open this door: holding the metrics token must not buy
 * guesses at the admin token. The metrics name conversations nowhere (labels are platforms,
 * providers, models and outcomes).
 */
import { sameSecret } from '../../core/same-secret.ts';
import type { ChannelRoute } from '../../channels/types.ts';
import { createBearerGate } from '../http/bearer-gate.ts';
import { LoginRateLimiter } from '../http/login-rate-limiter.ts';
import type { OpsMetrics } from './ops-metrics.ts';

/** Options of {@link createMetricsRoute}. */
export interface MetricsRouteOptions {
  metrics: OpsMetrics;
  /** The bearer tokens accepted (unset and empty ones are ignored). */
  tokens: () => readonly (string | undefined)[];
  /** Counts wrong tokens; one of its own that never forgets on success by default. */
  limiter?: LoginRateLimiter;
  /** Where a client that reached the attempt limit is reported. */
  log?: (line: string) => void;
}

/** The route. */
export function createMetricsRoute(options: MetricsRouteOptions): ChannelRoute {
  const gate = createBearerGate({
    door: 'metrics',
    accepts: (given) => options.tokens().some((token) => typeof token === 'string' && token.length > 0 && sameSecret(given, token)),
    unauthorized: () =>
      new Response('metrics need a bearer token: the admin token or OPERATOR_METRICS_TOKEN\n', {
        status: 401,
        headers: { 'www-authenticate': 'Bearer realm="operator metrics"', 'content-type': 'text/plain; charset=utf-8' },
      }),
    limiter: options.limiter ?? new LoginRateLimiter({ forgetOnSuccess: false }),
    log: options.log,
  });
  return {
    method: 'GET',
    path: '/metrics',
    async handler(request, connection) {
      const refusal = gate(request, connection);
      if (refusal) return refusal;
      const { contentType, body } = await options.metrics.render();
      return new Response(body, { headers: { 'content-type': contentType, 'cache-control': 'no-store' } });
    },
  };
}
