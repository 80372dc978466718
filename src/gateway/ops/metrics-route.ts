/**
 * `GET /metrics`: the Prometheus text, for a scraper holding a bearer token: the admin token, or
 * `OPERATOR_METRICS_TOKEN` (a token that can read metrics and nothing else, for a scraper's
 * configuration). Anything else gets 401 and learns nothing; the metrics name conversations
 * nowhere (labels are platforms, providers, models and outcomes).
 */
import { sameSecret } from '../../core/same-secret.ts';
import type { ChannelRoute } from '../../channels/types.ts';
import type { OpsMetrics } from './ops-metrics.ts';

/** The route; `tokens()` lists the bearer tokens accepted (empty ones are ignored). */
export function createMetricsRoute(options: { metrics: OpsMetrics; tokens: () => readonly (string | undefined)[] }): ChannelRoute {
  return {
    method: 'GET',
    path: '/metrics',
    async handler(request) {
      const given = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get('authorization') ?? '')?.[1];
      const accepted = options.tokens().filter((token): token is string => typeof token === 'string' && token.length > 0);
      if (given === undefined || !accepted.some((token) => sameSecret(given, token))) {
        return new Response('metrics need a bearer token: the admin token or OPERATOR_METRICS_TOKEN\n', {
          status: 401,
          headers: { 'www-authenticate': 'Bearer realm="operator metrics"', 'content-type': 'text/plain; charset=utf-8' },
        });
      }
      const { contentType, body } = await options.metrics.render();
      return new Response(body, { headers: { 'content-type': contentType, 'cache-control': 'no-store' } });
    },
  };
}
