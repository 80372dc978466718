/** The hono middleware that refuses, with 403, a request naming a host the gateway does not serve. */
import type { MiddlewareHandler } from 'hono';
import { canonicalHost, hostNameOf } from './host-name.ts';
import type { HostRule } from './host-rule.ts';

/**
 * Checks the `Host` header and the request URL's host (they differ only for an absolute request
 * target) against `allows`, on every route.
 */
export function hostGuard(allows: HostRule): MiddlewareHandler {
  return async function guardHost(context, next) {
    const header = context.req.header('host');
    const fromHeader = header === undefined ? undefined : hostNameOf(header);
    const fromUrl = canonicalHost(new URL(context.req.url).hostname);
    const headerAllowed = header === undefined || (fromHeader !== undefined && allows(fromHeader));
    if (!headerAllowed || fromUrl === undefined || !allows(fromUrl)) {
      return context.json({ error: hostRefusal(header === undefined ? fromUrl : fromHeader) }, 403, { 'cache-control': 'no-store' });
    }
    await next();
  };
}

/** Why a host is refused, and the setting that would allow it. */
export function hostRefusal(host: string | undefined): string {
  const named = host === undefined ? 'The Host of this request is' : `The host ${host} is`;
  return `${named} not one this gateway serves. If your reverse proxy or tunnel brings requests in under that name, add it to publicHosts in operator.json (or OPERATOR_PUBLIC_HOSTS).`;
}
