/**
 * Doctor check: whether the OpenAI-compatible API is on. Only when `OPERATOR_API_TOKEN` is set:
 * a token too short (or otherwise unusable) keeps the endpoint off, which the gateway says at
 * start too; the token itself is never shown.
 */
import { apiTokenOf, apiTokenVariable } from '../../gateway/api-endpoint.ts';
import type { CheckResult } from './check.ts';

/** The API's line, or undefined when its token is not set (the endpoint is off, as by default). */
export function checkApi(env: NodeJS.ProcessEnv): CheckResult | undefined {
  const token = apiTokenOf(env);
  if (token === undefined) return undefined;
  if ('problem' in token) return { level: 'WARN', name: 'API', detail: `${apiTokenVariable} is not usable (${token.problem}), so the OpenAI-compatible endpoint stays off`, fix: 'make one with `openssl rand -hex 32`' };
  return { level: 'OK', name: 'API', detail: `the OpenAI-compatible endpoint is on at /v1 (bearer ${apiTokenVariable})` };
}
