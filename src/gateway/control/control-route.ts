/**
 * `POST /control/*`: the command line's requests, applied by the running gateway, which holds
 * what they change: `operator schedule` (`/control/schedule`: its scheduler holds the jobs) and
 * `operator budget` (`/control/budget`: its spending holds the kill switch, and its turns stop at
 * the next model call). Only requests with the token of `gateway.json` are taken: whoever can read
 * OPERATOR_HOME owns the gateway. The token is compared in constant time and never logged, and
 * wrong ones count like a login's (`bearer-gate.ts`: 5 in 15 minutes per client, then 429), one
 * count for every control route, since one token opens them all. The body is read only after the
 * token is checked, and with a limit (`bodyLimits.control`, 413 past it).
 */
import type * as z from 'zod';
import { bodyLimits } from '../../core/body-limits.ts';
import { readLimitedBody, tooLarge } from '../../core/read-limited-body.ts';
import type { ChannelRoute } from '../../channels/types.ts';
import { errorMessage } from '../../core/errors.ts';
import { sameSecret } from '../../core/same-secret.ts';
import { applyBudgetRequest, budgetRequestSchema, type BudgetControl } from '../budget/budget-control.ts';
import { createBearerGate, type BearerGate } from '../http/bearer-gate.ts';
import type { LoginRateLimiter } from '../http/login-rate-limiter.ts';
import { sharedSecretProblem } from '../config/shared-secrets.ts';
import { applyScheduleRequest, scheduleRequestSchema, type ScheduleControl } from '../schedule-control.ts';

/** The path of the schedule control route. */
export const scheduleControlPath = '/control/schedule';

/** The path of the budget control route. */
export const budgetControlPath = '/control/budget';

/** What the routes need: the token, whether the gateway is ready, and the parts they act on. */
export interface ControlRouteOptions {
  /** The control token (made at start: 256 random bits); at least 16 characters, like every shared secret. */
  token: string;
  /** Counts wrong tokens; one of its own by default, shared by every control route. */
  limiter?: LoginRateLimiter;
  /** False while the gateway starts or stops: requests get 503. */
  ready(): boolean;
  /** The scheduler's side, for `operator schedule`. */
  control(): ScheduleControl;
  /** The gateway's spending, for `operator budget`. */
  budget(): BudgetControl;
  /** Where a request that failed unexpectedly, or a client that reached the attempt limit, is reported. */
  log(line: string): void;
}

/**
 * The control routes, to mount on the gateway's server.
 *
 * @throws Error when the token is not a valid shared secret (a bug: the gateway makes it).
 */
export function createControlRoutes(options: ControlRouteOptions): ChannelRoute[] {
  const problem = sharedSecretProblem(options.token);
  if (problem !== undefined) throw new Error(`the control token is not valid (${problem})`);
  const gate = createBearerGate({
    door: 'control',
    accepts: (given) => sameSecret(given, options.token),
    unauthorized: () => Response.json({ error: 'unauthorized' }, { status: 401 }),
    limiter: options.limiter,
    log: (line) => options.log(line),
  });
  return [
    controlRoute(scheduleControlPath, 'operator schedule', scheduleRequestSchema, (request) => applyScheduleRequest(request, options.control()), gate, options),
    controlRoute(budgetControlPath, 'operator budget', budgetRequestSchema, (request) => applyBudgetRequest(request, options.budget()), gate, options),
  ];
}

/** One route: the token, readiness, the body (JSON, checked by `schema`), then `apply`'s answer as JSON. */
function controlRoute<T>(path: string, command: string, schema: z.ZodType<T>, apply: (request: T) => Promise<unknown>, gate: BearerGate, options: ControlRouteOptions): ChannelRoute {
  return {
    method: 'POST',
    path,
    async handler(request, connection) {
      const refusal = gate(request, connection);
      if (refusal) return refusal;
      if (!options.ready()) return Response.json({ error: 'the gateway is starting or stopping; try again in a moment' }, { status: 503 });
      const text = await readLimitedBody(request, bodyLimits.control);
      if (text === undefined) return tooLarge(bodyLimits.control);
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        return Response.json({ error: 'the body must be JSON' }, { status: 400 });
      }
      const parsed = schema.safeParse(body);
      if (!parsed.success) return Response.json({ error: `invalid request: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || 'body'}: ${issue.message}`).join('; ')}` }, { status: 400 });
      try {
        return Response.json(await apply(parsed.data));
      } catch (error) {
        // The reason goes to the gateway's log, not over HTTP, like every other failure the server answers.
        options.log(`${command}: the request failed: ${errorMessage(error)}`);
        return Response.json({ error: "internal error (the gateway's log says why)" }, { status: 500 });
      }
    },
  };
}
