/**
 * The web chat's door on Workers, in front of its page and its API, in the Node gateway's order:
 * off without a valid `OPERATOR_WEB_TOKEN` (see `web-chat-off.ts`), then the origin check
 * (cross-site requests refused), then the Node gateway's own login middleware (login page,
 * `POST /web/login`, the signed session cookie, failed attempts limited per client, logout). The
 * failed attempts are counted by the access object, not in the isolate: Cloudflare runs many
 * isolates, and one client's guesses spread over them all count against one limit.
 */
import type { MiddlewareHandler } from 'hono';
import { errorMessage } from '../core/errors.ts';
import { canonicalHost } from '../gateway/http/host-name.ts';
import { originRefusal } from '../gateway/http/origin-guard.ts';
import type { LoginLimiter } from '../gateway/http/login-rate-limiter.ts';
import { webLogin } from '../gateway/http/web-login.ts';
import { validWebToken, webTokenVariable } from '../gateway/http/web-token.ts';
import { accessObject } from './access-object.ts';
import { webChatOff } from './web-chat-off.ts';
import { workerConnection } from './worker-connection.ts';
import type { WorkerEnv } from './worker-env.ts';

/** The door of one value of the token: its login, or why the web chat is off. */
type Door = { login: MiddlewareHandler } | { off: string };

/** The door of the token last seen, kept while the token stays: the token is checked, and a bad one reported, once. */
let current: { given: string | undefined; door: Door } | undefined;

function doorOf(env: WorkerEnv): Door {
  const given = env.OPERATOR_WEB_TOKEN;
  if (current === undefined || current.given !== given) current = { given, door: makeDoor(given) };
  return current.door;
}

function makeDoor(given: string | undefined): Door {
  const token = given?.trim();
  if (!token) return { off: `no login token is set (${webTokenVariable})` };
  try {
    const log = (line: string) => console.error(line);
    // The port is read from each request's URL (`workerConnection`); this one is never used.
    return { login: webLogin({ token: validWebToken(token, webTokenVariable), port: 443, connection: workerConnection, limiter: (context) => accessLimiter(context.env as WorkerEnv), log }) };
  } catch (error) {
    // Said once per isolate, with the reason only: the message never holds the token.
    const reason = errorMessage(error);
    console.error(`operator: the web chat is off: ${reason}`);
    return { off: reason };
  }
}

/**
 * The attempt limit of the whole Worker, kept by the access object (`AccessObject.loginAttempt`):
 * one request to it per login attempt, none for a page loaded with a session. When it cannot be
 * reached the call fails, and the login refuses the attempt (fail closed).
 */
function accessLimiter(env: WorkerEnv): LoginLimiter {
  return { attempt: (client, right) => accessObject(env).loginAttempt(client, right) };
}

/**
 * The middleware: a request passes to the page or the API only with a valid session; the login's
 * own routes are answered here.
 */
export const webChatGate: MiddlewareHandler<{ Bindings: WorkerEnv }> = async (context, next) => {
  const door = doorOf(context.env);
  if ('off' in door) return webChatOff(context.req.raw, door.off);
  // The Worker serves one host (its URL's): a state-changing request from a page of any other is refused.
  const ownHost = canonicalHost(new URL(context.req.url).hostname);
  const refusal = originRefusal(context.req.method, { origin: context.req.header('origin'), secFetchSite: context.req.header('sec-fetch-site') }, (host) => host === ownHost);
  if (refusal !== undefined) return context.json({ error: refusal }, 403, { 'cache-control': 'no-store' });
  return door.login(context, next);
};
