/**
 * The OpenAI-compatible API (`/v1/models`, `/v1/chat/completions`) as `operator start` sets it up:
 * off unless `OPERATOR_API_TOKEN` holds a shared secret (16 characters or more; a shorter one is
 * named at start and keeps it off, never shown). Its bearer token is compared in constant time and
 * counted by the login limiter (`http/bearer-gate.ts`: 5 wrong tokens from a client in 15 minutes,
 * then 429), and the channel (`channels/api`) hears from the event stream when turns in its
 * conversations begin and end. The channel and its SDK-free code load only when it is on.
 *
 * Who may use it: whoever holds the token, as the `user` they name. Every caller is a seat other
 * than the owner's (`api:<user>` in direct messages) unless `admins` names `api:<user>`.
 */
import type { ApiChannel } from '../channels/api/index.ts';
import { sameSecret } from '../core/same-secret.ts';
import { sharedSecretProblem } from './config/shared-secrets.ts';
import { createBearerGate } from './http/bearer-gate.ts';
import { LoginRateLimiter } from './http/login-rate-limiter.ts';
import type { OpsEvents } from './ops/ops-events.ts';

/** The variable that turns the API on. */
export const apiTokenVariable = 'OPERATOR_API_TOKEN';

/** The API's token from `env`: the token, a problem with it (never the value), or neither (off). */
export function apiTokenOf(env: NodeJS.ProcessEnv): { token: string } | { problem: string } | undefined {
  const token = env[apiTokenVariable]?.trim();
  if (!token) return undefined;
  const problem = sharedSecretProblem(token);
  return problem === undefined ? { token } : { problem };
}

/** What {@link apiEndpoint} needs of the gateway. */
export interface ApiEndpointOptions {
  env: NodeJS.ProcessEnv;
  /** The profiles there are (the models). */
  models(): Promise<string[]>;
  ops: OpsEvents;
  /** The gateway's turn deadline: a request waits for its turn a minute longer at most. */
  turnTimeoutMs: number;
  log(line: string): void;
}

/** The API's channel when it is on, and the start-up banner's line about it (given the gateway's address). */
export interface ApiEndpoint {
  channel?: ApiChannel;
  banner(origin: string): string;
}

/**
 * Sets the API up from the environment.
 *
 * @example
 * const api = await apiEndpoint({ env, models, ops, turnTimeoutMs, log });
 * const adapters = [web, ...(api.channel ? [api.channel] : []), ...platforms];
 */
export async function apiEndpoint(options: ApiEndpointOptions): Promise<ApiEndpoint> {
  const token = apiTokenOf(options.env);
  if (token === undefined) return { banner: () => `OpenAI-compatible API: off (set ${apiTokenVariable}, 16 characters or more, to turn on /v1/chat/completions)` };
  if ('problem' in token) return { banner: () => `OpenAI-compatible API: off, ${apiTokenVariable} is not usable (${token.problem}; make one with \`openssl rand -hex 32\`)` };
  const { createApiChannel, tooManyWrongTokensResponse, unauthorizedResponse } = await import('../channels/api/index.ts');
  const secret = token.token;
  const gate = createBearerGate({ door: 'api', accepts: (given) => sameSecret(given, secret), unauthorized: unauthorizedResponse, refused: tooManyWrongTokensResponse, limiter: new LoginRateLimiter(), log: options.log });
  const channel = createApiChannel({ gate, models: options.models, maxWaitMs: options.turnTimeoutMs + 60_000, log: options.log });
  options.ops.subscribe((record) => {
    if (record.platform !== channel.platform || record.conversation === undefined || record.turn === undefined) return;
    if (record.type === 'turn.start') channel.turnStarted(record.conversation, record.turn);
    if (record.type === 'turn.end') channel.turnEnded({ sessionKey: record.conversation, turnId: record.turn, status: record.status, tokens: record.tokens, ...(record.failure && { failure: record.failure }) });
  });
  return { channel, banner: (origin) => `OpenAI-compatible API: ${origin}v1 (bearer ${apiTokenVariable}; each caller's \`user\` is a conversation api:<user>, the owner's tools only for admins named there)` };
}
