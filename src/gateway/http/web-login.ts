/**
 * The web chat's login, as hono middleware in front of every route but the ones with their own
 * authentication (`/healthz`, `/readyz`, `/webhooks/*`, `/control/*`, `/admin`, `/v1/*`). Without a valid session, `GET /`
 * serves the login page and everything else answers 401. `POST /web/login` takes the token (form
 * or JSON) and sets the session cookie; `POST /web/logout` clears it. Failed attempts are rate
 * limited per client address; an attempt the limiter cannot count is refused (503). The token is
 * never logged or echoed.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import * as z from 'zod';
import { LoginRateLimiter, type LoginLimiter, type LoginOutcome } from './login-rate-limiter.ts';
import { loginPageHeaders, loginPath, renderLoginPage } from './login-page.ts';
import { clientKey, isHttps, nodeConnection, type RequestConnection } from './request-origin.ts';
import { SessionSigner, sessionLifetimeMs } from './session-signer.ts';
import { bodyLimits } from '../../core/body-limits.ts';
import { errorMessage } from '../../core/errors.ts';
import { readLimitedBody, tooLarge } from '../../core/read-limited-body.ts';
import { sameSecret } from '../../core/same-secret.ts';

/** The path that ends a session. */
export const logoutPath = '/web/logout';

/** Options of {@link webLogin}. */
export interface WebLoginOptions {
  token: string;
  /** The gateway's port, naming the cookie when the request has no connection (tests). */
  port: number;
  /**
   * Counts failed attempts per client: a {@link LoginRateLimiter} in memory by default; a function
   * gives the one of each request (a Worker's, reached through the request's bindings).
   */
  limiter?: LoginLimiter | ((context: Context) => LoginLimiter);
  now?: () => number;
  /** Where a client that reached the attempt limit is reported (its address, never a token). */
  log?: (line: string) => void;
  /** How the client's address and the port are read: @hono/node-server's connection by default. */
  connection?: RequestConnection;
}

/**
 * Routes that keep their own authentication (the admin console asks for the admin token, the
 * OpenAI-compatible API under `/v1/` for `OPERATOR_API_TOKEN`).
 */
function exempt(path: string): boolean {
  return path === '/healthz' || path === '/readyz' || path.startsWith('/webhooks/') || path.startsWith('/control/') || path === '/admin' || path.startsWith('/admin/') || path.startsWith('/v1/');
}

/** The session cookie of the gateway on `port`: cookies are shared across a host's ports, so each gateway names its own. */
export function sessionCookieName(port: number): string {
  return `operator_session_${port}`;
}

const jsonBody = z.object({ token: z.string() });

/**
 * The login middleware.
 *
 * @example
 * app.use(webLogin({ token, port: config.port, log: gateway.log }));
 */
export function webLogin(options: WebLoginOptions): MiddlewareHandler {
  const signer = new SessionSigner(options.token);
  const limiter = options.limiter ?? new LoginRateLimiter();
  const limiterOf = (context: Context) => (typeof limiter === 'function' ? limiter(context) : limiter);
  const now = options.now ?? Date.now;
  const log = options.log ?? (() => undefined);
  const connection = options.connection ?? nodeConnection;

  const cookieName = (context: Context) => sessionCookieName(connection.localPort(context, options.port));

  async function logIn(context: Context): Promise<Response> {
    const form = !/^application\/json\s*(;|$)/i.test(context.req.header('content-type') ?? '');
    const client = connection.clientAddress(context);
    const given = await readToken(context, form);
    if (given instanceof Response) return given;
    let result: LoginOutcome;
    try {
      // One call once the guess is known (see `LoginLimiter`); the limiter decides, the token only says right or wrong.
      result = await limiterOf(context).attempt(clientKey(client), sameSecret(given, options.token));
    } catch (error) {
      // Fail closed: an attempt that cannot be counted is not let in, right token or not, or a
      // limiter out of reach (a Worker's access object) would let guesses through unlimited.
      log(`web login: the attempt from ${client} is refused: its failed attempts cannot be counted now (${errorMessage(error)})`);
      return unavailable(context, form);
    }
    if (result.outcome === 'refused') {
      if (result.reachedNow) log(`web login: too many failed attempts from ${client}; its attempts are refused for ${Math.ceil(result.retryAfter / 60)} min`);
      return tooMany(context, form, result.retryAfter);
    }
    if (result.outcome === 'wrong') return form ? page(context, 401, 'That token is not right.') : context.json({ error: 'wrong token' }, 401, noStore);
    setCookie(context, cookieName(context), signer.sign(now() + sessionLifetimeMs), {
      path: '/',
      httpOnly: true,
      sameSite: 'Strict',
      secure: isHttps(context),
      maxAge: Math.floor(sessionLifetimeMs / 1000),
    });
    return form ? context.redirect('/', 303) : context.json({ ok: true }, 200, noStore);
  }

  function logOut(context: Context): Response {
    deleteCookie(context, cookieName(context), { path: '/', httpOnly: true, sameSite: 'Strict', secure: isHttps(context) });
    const form = !/^application\/json\s*(;|$)/i.test(context.req.header('content-type') ?? '');
    return form ? context.redirect('/', 303) : context.json({ ok: true }, 200, noStore);
  }

  return async function requireWebLogin(context, next) {
    const { path, method } = context.req;
    if (exempt(path)) return next();
    if (path === loginPath && method === 'POST') return logIn(context);
    if (path === logoutPath && method === 'POST') return logOut(context);
    const session = getCookie(context, cookieName(context));
    if (session !== undefined && signer.verify(session, now())) return next();
    if ((method === 'GET' || method === 'HEAD') && (path === '/' || path === loginPath)) return page(context, 401);
    return context.json({ error: `log in first (the web chat asks for its token at /)` }, 401, noStore);
  };
}

const noStore = { 'cache-control': 'no-store' };

function page(context: Context, status: 401 | 429 | 503, problem?: string, headers: Record<string, string> = {}): Response {
  return context.html(renderLoginPage(problem), status, { ...loginPageHeaders, ...headers });
}

function tooMany(context: Context, form: boolean, seconds: number): Response {
  const headers = { 'retry-after': String(seconds) };
  const text = `Too many failed attempts. Try again in ${Math.ceil(seconds / 60)} min.`;
  return form ? page(context, 429, text, headers) : context.json({ error: text, retryAfter: seconds }, 429, { ...noStore, ...headers });
}

function unavailable(context: Context, form: boolean): Response {
  const text = 'The login cannot count failed attempts right now, so it lets no one in. Try again in a minute.';
  return form ? page(context, 503, text) : context.json({ error: text }, 503, noStore);
}

/** The token the body gives (undefined when it gives none), or the response refusing the body. */
async function readToken(context: Context, form: boolean): Promise<string | undefined | Response> {
  // Read with a limit (reading stops there), before the token is looked at.
  const text = await readLimitedBody(context.req.raw, bodyLimits.webLogin);
  if (text === undefined) return tooLarge(bodyLimits.webLogin);
  if (form) return new URLSearchParams(text).get('token')?.trim() || undefined;
  try {
    const parsed = jsonBody.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data.token.trim() || undefined : undefined;
  } catch {
    return undefined;
  }
}
