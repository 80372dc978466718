/**
 * Errors of the OpenAI-compatible API in OpenAI's shape, `{"error": {"message", "type", "param",
 * "code"}}`, so a client's SDK reads them as it reads OpenAI's (the `openai` SDK raises an
 * `APIError` of the status's class with these fields). Messages say what is wrong and never
 * carry a token, a key or what the person wrote.
 */

/** OpenAI's error object. */
export interface OpenAIError {
  message: string;
  type: string;
  param: string | null;
  code: string | null;
}

/** An error answer: the status, the error, and `Retry-After` seconds where waiting helps. */
export interface ApiFailure {
  status: number;
  error: OpenAIError;
  retryAfter?: number;
}

/** A failure of `status` with `message`, `type`, `code` and (for a field of the body) `param`. */
export function failure(status: number, message: string, type: string, code: string | null = null, param: string | null = null, retryAfter?: number): ApiFailure {
  return { status, error: { message, type, param, code }, ...(retryAfter !== undefined && { retryAfter }) };
}

/** The body of a request that does not do (400), naming the field. */
export function badRequest(message: string, param: string | null = null, code: string | null = null): ApiFailure {
  return failure(400, message, 'invalid_request_error', code, param);
}

/** The JSON response of `failed`, with `Retry-After` when it has one. */
export function errorResponse(failed: ApiFailure): Response {
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };
  if (failed.retryAfter !== undefined) headers['retry-after'] = String(failed.retryAfter);
  return new Response(JSON.stringify({ error: failed.error }), { status: failed.status, headers });
}

/** A missing or wrong bearer token (401): the door says what it takes, never what came. */
export function unauthorizedResponse(): Response {
  const response = errorResponse(failure(401, 'Incorrect or missing API key: send the gateway\'s OPERATOR_API_TOKEN as "Authorization: Bearer <token>".', 'invalid_request_error', 'invalid_api_key'));
  response.headers.set('www-authenticate', 'Bearer realm="operator api"');
  return response;
}

/** A client that sent too many wrong tokens (429; the gate adds `Retry-After`). */
export function tooManyWrongTokensResponse(retryAfter: number): Response {
  return errorResponse(failure(429, `Too many requests with a wrong API key: try again in ${Math.ceil(retryAfter / 60)} min.`, 'rate_limit_error', 'rate_limit_exceeded'));
}
