/**
 * Who gets into the console: the holder of the admin token, by `Authorization: Bearer <token>`
 * (scripts, the JSON API) or by a session cookie set when they log in with it (browsers). Every
 * change (POST) must also pass the origin check, and one made with a session must carry the
 * session's CSRF token (`x-csrf-token`, or the form field `csrf`). Wrong tokens, whether typed at
 * the login or sent as a bearer, count against the client in the login rate limiter; a client at
 * the limit is refused without its guesses being checked. Nothing here logs or echoes a token.
 */
import { bodyLimits } from '../../core/body-limits.ts';
import { readLimitedBody, tooLarge } from '../../core/read-limited-body.ts';
import type { RouteConnection } from '../../channels/types.ts';
import { hostNameOf } from '../http/host-name.ts';
import { LoginRateLimiter } from '../http/login-rate-limiter.ts';
import { originRefusal } from '../http/origin-guard.ts';
import { clientKey } from '../http/request-origin.ts';
import { adminTokenMatches, bearerOf } from './admin-token.ts';
import { adminCookieName, AdminSessions, adminSessionLifetimeMs } from './admin-session.ts';

/** How a request got in. */
export type AdminAccess = { via: 'bearer' } | { via: 'session'; session: string };

/** Options of {@link AdminGate}. */
export interface AdminGateOptions {
  token: string;
  now?: () => number;
  limiter?: LoginRateLimiter;
  /** Where a client that reached the attempt limit is reported (its address, never a token). */
  log?: (line: string) => void;
}

/** The header a page sends its CSRF token in. */
export const csrfHeader = 'x-csrf-token';

const noStore = { 'cache-control': 'no-store' };

/** The console's authentication and change checks. */
export class AdminGate {
  readonly sessions: AdminSessions;
  readonly #token: string;
  readonly #now: () => number;
  readonly #limiter: LoginRateLimiter;
  readonly #log: (line: string) => void;

  constructor(options: AdminGateOptions) {
    this.#token = options.token;
    this.sessions = new AdminSessions(options.token);
    this.#now = options.now ?? Date.now;
    this.#limiter = options.limiter ?? new LoginRateLimiter();
    this.#log = options.log ?? (() => undefined);
  }

  /**
   * How `request` gets in: its bearer token or its session; undefined when it has neither (the
   * caller shows the login page or answers 401); a refusal when its bearer token is wrong or its
   * client is at the attempt limit.
   */
  authenticate(request: Request, connection: RouteConnection | undefined): AdminAccess | Response | undefined {
    const bearer = bearerOf(request);
    if (bearer !== undefined) {
      const client = clientOf(connection);
      const result = this.#limiter.attempt(client.key, adminTokenMatches(bearer, this.#token));
      if (result.outcome === 'ok') return { via: 'bearer' };
      if (result.outcome === 'refused') return tooMany(this.#waitOf(client, result));
      return Response.json({ error: 'wrong admin token' }, { status: 401, headers: { ...noStore, 'www-authenticate': 'Bearer realm="operator admin"' } });
    }
    const session = cookieOf(request, adminCookieName(connection?.localPort));
    return this.sessions.verify(session, this.#now()) ? { via: 'session', session: session! } : undefined;
  }

  /**
   * Why a change (`POST`) must be refused, as the response, or undefined when it may go on: a
   * request from another site (its `Origin` or `Sec-Fetch-Site`), or, with a session, a missing or
   * wrong CSRF token (`form` is the request's form body, where a form sends it).
   */
  refuseChange(request: Request, access: AdminAccess | undefined, form?: URLSearchParams): Response | undefined {
    const host = hostNameOf(request.headers.get('host') ?? new URL(request.url).host);
    const refusal = originRefusal(request.method, { origin: request.headers.get('origin') ?? undefined, secFetchSite: request.headers.get('sec-fetch-site') ?? undefined }, (origin) => origin === host);
    if (refusal !== undefined) return Response.json({ error: refusal }, { status: 403, headers: noStore });
    if (access?.via !== 'session') return undefined;
    const given = request.headers.get(csrfHeader) ?? form?.get('csrf') ?? undefined;
    if (!this.sessions.csrfMatches(access.session, given)) {
      return Response.json({ error: 'missing or wrong CSRF token: reload the console page and try again' }, { status: 403, headers: noStore });
    }
    return undefined;
  }

  /**
   * `POST /admin/login`: takes the token (form field `token`, or JSON `{ token }`), sets the session
   * cookie and sends a form back to the console (a JSON request gets `{ ok: true }`). A wrong
   * token answers 401, too many 429; `page` renders the login page with a problem for a form.
   */
  async logIn(request: Request, connection: RouteConnection | undefined, page: (status: 401 | 429, problem: string) => Response): Promise<Response> {
    const refusal = this.refuseChange(request, undefined);
    if (refusal) return refusal;
    const form = !/^application\/json\s*(;|$)/i.test(request.headers.get('content-type') ?? '');
    const client = clientOf(connection);
    const text = await readLimitedBody(request, bodyLimits.webLogin);
    if (text === undefined) return tooLarge(bodyLimits.webLogin);
    const given = form ? new URLSearchParams(text).get('token')?.trim() : jsonToken(text);
    // Decided in one step once the guess is known: guesses sent in parallel (each waiting on its
    // body) are counted one by one, none let past a limit checked before the others were counted.
    const result = this.#limiter.attempt(client.key, adminTokenMatches(given, this.#token));
    if (result.outcome === 'refused') {
      const wait = this.#waitOf(client, result);
      return form ? retryAfter(page(429, tooManyText(wait)), wait) : tooMany(wait);
    }
    if (result.outcome === 'wrong') return form ? page(401, 'That token is not right.') : Response.json({ error: 'wrong admin token' }, { status: 401, headers: noStore });
    const cookie = sessionCookie(adminCookieName(connection?.localPort), this.sessions.create(this.#now()), Math.floor(adminSessionLifetimeMs / 1000), connection?.https ?? false);
    const headers = { ...noStore, 'set-cookie': cookie };
    return form ? new Response(null, { status: 303, headers: { ...headers, location: '/admin' } }) : Response.json({ ok: true }, { headers });
  }

  /** `POST /admin/logout`: clears the cookie (the session value itself stays valid until it expires: sessions are stateless). */
  logOut(connection: RouteConnection | undefined): Response {
    const cookie = sessionCookie(adminCookieName(connection?.localPort), '', 0, connection?.https ?? false);
    return Response.json({ ok: true }, { headers: { ...noStore, 'set-cookie': cookie } });
  }

  /** The seconds a refused client waits; the client is reported when this attempt reached the limit. */
  #waitOf(client: { address: string }, refused: { retryAfter: number; reachedNow: boolean }): number {
    if (refused.reachedNow) this.#log(`admin console: too many wrong tokens from ${client.address}; its attempts are refused for ${Math.ceil(refused.retryAfter / 60)} min`);
    return refused.retryAfter;
  }
}

function clientOf(connection: RouteConnection | undefined): { key: string; address: string } {
  const address = connection?.clientAddress ?? 'unknown';
  return { key: clientKey(address), address };
}

function tooManyText(seconds: number): string {
  return `Too many wrong tokens. Try again in ${Math.ceil(seconds / 60)} min.`;
}

function retryAfter(response: Response, seconds: number): Response {
  response.headers.set('retry-after', String(seconds));
  return response;
}

function tooMany(seconds: number): Response {
  return Response.json({ error: tooManyText(seconds), retryAfter: seconds }, { status: 429, headers: { ...noStore, 'retry-after': String(seconds) } });
}

function jsonToken(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as unknown;
    const token = typeof body === 'object' && body !== null ? (body as { token?: unknown }).token : undefined;
    return typeof token === 'string' ? token.trim() : undefined;
  } catch {
    return undefined;
  }
}

/** The value of cookie `name` in the request's `Cookie` header. */
function cookieOf(request: Request, name: string): string | undefined {
  for (const pair of (request.headers.get('cookie') ?? '').split(';')) {
    const at = pair.indexOf('=');
    if (at !== -1 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim();
  }
  return undefined;
}

/** The session cookie: for the console's paths only, never readable by scripts, never sent by another site's request. */
function sessionCookie(name: string, value: string, maxAgeSeconds: number, secure: boolean): string {
  return `${name}=${value}; Path=/admin; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}
