/**
 * The admin console, loaded on the first `/admin` request (see `admin-routes.ts`): the login, the
 * page and the JSON API behind one gate. In order, for every request:
 *
 * 1. `GET|POST /admin/login`: the login page, and logging in (rate limited, origin checked);
 * 2. authentication: the bearer token or the session cookie; without either, the page answers
 *    with the login page and everything else 401;
 * 3. every POST: the origin check, and with a session its CSRF token;
 * 4. `POST /admin/logout`, `GET /admin` (the page), `/admin/api/*` (the API).
 *
 * Every JSON answer is scrubbed of the environment's secrets and the console's own tokens before
 * it leaves: a transcript may hold a tool's output that printed one.
 */
import type { RouteConnection } from '../../channels/types.ts';
import { errorMessage } from '../../core/errors.ts';
import { createScrubber } from '../ops/secret-scrubber.ts';
import { answerApi } from './admin-api.ts';
import { AdminGate } from './admin-gate.ts';
import { adminLoginHeaders, renderAdminLogin } from './admin-login-page.ts';
import { adminPageHeaders, renderAdminPage } from './admin-page.ts';
import type { AdminConsoleParts, AdminHandler } from './admin-routes.ts';
import { EventFeed } from './event-feed.ts';
import { ProfileReports } from './profile-actions.ts';

const noStore = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };

/** The console's request handler. */
export function createAdminConsole(parts: AdminConsoleParts): AdminHandler {
  const { gateway } = parts;
  const gate = new AdminGate({ token: parts.token, now: parts.now, log: (line) => gateway.log(line) });
  const scrub = createScrubber(gateway.runtime.env, [parts.token, ...(parts.secrets ?? [])]);
  const feed = new EventFeed({ ops: gateway.ops, recent: parts.recent, scrub });
  const api = { ...parts, profiles: new ProfileReports(), feed };
  const json = (body: unknown, status = 200) => new Response(scrub(JSON.stringify(body)), { status, headers: { ...noStore, 'content-type': 'application/json; charset=utf-8' } });
  const loginPage = (status: 200 | 401 | 429, problem?: string) => new Response(renderAdminLogin(problem), { status, headers: adminLoginHeaders });

  return async function answerAdmin(request: Request, connection: RouteConnection | undefined): Promise<Response> {
    const url = new URL(request.url);
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const post = request.method === 'POST';
    if (path === '/admin/login') return post ? gate.logIn(request, connection, (status, problem) => loginPage(status, problem)) : loginPage(200);

    const access = gate.authenticate(request, connection);
    if (access instanceof Response) return access;
    if (access === undefined) {
      if (!post && path === '/admin') return loginPage(401);
      return json({ error: 'log in first: the admin console asks for the admin token (operator admin url prints a login link)' }, 401);
    }
    if (post) {
      const refusal = gate.refuseChange(request, access);
      if (refusal) return refusal;
    }
    if (post && path === '/admin/logout') return gate.logOut(connection);
    if (!post && path === '/admin') return new Response(renderAdminPage(access.via === 'session' ? gate.sessions.csrfOf(access.session) : ''), { headers: adminPageHeaders });
    if (path.startsWith('/admin/api/')) {
      try {
        const answer = await answerApi(api, request, path.slice('/admin/api/'.length), url);
        return answer instanceof Response ? answer : json(answer.body, answer.status);
      } catch (error) {
        // The reason goes to the gateway's log, not over HTTP, like every other failure the server answers.
        gateway.log(`admin console: ${request.method} ${path} failed: ${errorMessage(error)}`);
        return json({ error: "internal error (the gateway's log says why)" }, 500);
      }
    }
    return json({ error: 'not found' }, 404);
  };
}
