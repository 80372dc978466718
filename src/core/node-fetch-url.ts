/**
 * What the bundle gives node-fetch for Node's `url` module (see bin/build.js): the WHATWG `URL`,
 * and the two legacy functions node-fetch 2 calls, made from it. node-fetch reads every request's
 * address with `url.parse()` (after checking it with `new URL()`), and Node 24 deprecates
 * `url.parse()` at run time (DEP0169): called from the bundle, which is not under node_modules, it
 * printed a DeprecationWarning on the gateway's stderr at its first request, in the middle of its
 * JSON log. The fields are those of `url.parse()` for the addresses node-fetch accepts (absolute
 * http and https); `http.request` takes them as its options.
 */

/** The fields of a legacy `url.parse()` result (`parseQueryString` off). */
export interface LegacyUrl {
  protocol: string | null;
  slashes: boolean | null;
  auth: string | null;
  host: string | null;
  port: string | null;
  hostname: string | null;
  hash: string | null;
  search: string | null;
  query: string | null;
  pathname: string | null;
  path: string | null;
  href: string;
}

/**
 * `address` as `url.parse()` gives it. One that is not absolute has no protocol and no host,
 * which node-fetch refuses ("Only absolute URLs are supported"), as it refuses Node's answer.
 */
export function parse(address: string): LegacyUrl {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return { protocol: null, slashes: null, auth: null, host: null, port: null, hostname: null, hash: null, search: null, query: null, pathname: address, path: address, href: address };
  }
  const user = decodeURIComponent(url.username);
  const auth = url.username || url.password ? (url.password ? `${user}:${decodeURIComponent(url.password)}` : user) : null;
  return {
    protocol: url.protocol,
    slashes: true,
    auth,
    host: url.host,
    port: url.port || null,
    // Without an IPv6 address's brackets, as http.request wants a hostname.
    hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    hash: url.hash || null,
    search: url.search || null,
    query: url.search ? url.search.slice(1) : null,
    pathname: url.pathname,
    path: `${url.pathname}${url.search}`,
    href: url.href,
  };
}

/** The address of a {@link parse} result (node-fetch's `Request.url`). */
export function format(parsed: LegacyUrl): string {
  return parsed.href;
}

export default { URL: globalThis.URL, parse, format };
