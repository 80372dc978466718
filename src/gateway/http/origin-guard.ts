/**
 * Cross-site request forgery: a page on another site may make a browser send a POST to the
 * gateway. Browsers say where such a request comes from (`Origin`, `Sec-Fetch-Site`); a
 * state-changing request from a foreign origin is refused. A request without `Origin` (a webhook,
 * curl, the command line) is no browser's and passes: it carries its own authentication.
 */
import type { MiddlewareHandler } from 'hono';
import { canonicalHost } from './host-name.ts';
import type { HostRule } from './host-rule.ts';

const safeMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The headers the origin rule reads. */
export interface OriginHeaders {
  origin?: string;
  secFetchSite?: string;
}

/**
 * Why a request must be refused, or undefined when it may pass: only state-changing methods are
 * checked; `Sec-Fetch-Site: cross-site`, `Origin: null` (sandboxed frames, files, redirects
 * across sites) and an `Origin` whose host fails the host rule are refused.
 *
 * @example
 * originRefusal('POST', { origin: 'https://evil.example' }, allows); // 'cross-origin request refused: ...'
 * originRefusal('POST', {}, allows); // undefined (no browser said where it came from)
 */
export function originRefusal(method: string, headers: OriginHeaders, allows: HostRule): string | undefined {
  if (safeMethods.has(method.toUpperCase())) return undefined;
  if (headers.secFetchSite?.trim().toLowerCase() === 'cross-site') return 'cross-site request refused: this gateway takes changes only from its own pages';
  if (headers.origin === undefined) return undefined;
  const host = originHost(headers.origin);
  if (host === undefined || !allows(host)) return 'cross-origin request refused: this gateway takes changes only from its own pages (the Origin header names another site)';
  return undefined;
}

/** The canonical host of an http(s) origin; undefined for `null`, other schemes and garbage. */
function originHost(origin: string): string | undefined {
  try {
    const url = new URL(origin.trim());
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    return canonicalHost(url.hostname);
  } catch {
    return undefined;
  }
}

/** The hono middleware that applies {@link originRefusal}, answering 403 with the reason. */
export function originGuard(allows: HostRule): MiddlewareHandler {
  return async function guardOrigin(context, next) {
    const refusal = originRefusal(context.req.method, { origin: context.req.header('origin'), secFetchSite: context.req.header('sec-fetch-site') }, allows);
    if (refusal !== undefined) return context.json({ error: refusal }, 403, { 'cache-control': 'no-store' });
    await next();
  };
}
