/**
 * What every check of `operator doctor` returns, and the helpers they share: a deadline for the
 * ones that reach the network and a JSON request that never shows its URL (Telegram's holds the
 * token).
 */

/** How a check went: fine, worth a look, or something that stops operator from working. */
export type CheckLevel = 'OK' | 'WARN' | 'FAIL';

/** One line of the report. */
export interface CheckResult {
  level: CheckLevel;
  /** What was checked: `Node`, `Telegram`, ... */
  name: string;
  /** What was found. */
  detail: string;
  /** What to do about it (for WARN and FAIL). */
  fix?: string;
}

/** How long a check that reaches the network may take, unless told otherwise. */
export const networkTimeoutMs = 10_000;

/** A JSON answer: its HTTP status, headers and body (undefined when it is not JSON). */
export interface JsonAnswer {
  status: number;
  statusText: string;
  /** Slack lists a token's granted scopes in one (`x-oauth-scopes`). */
  headers: Headers;
  body: unknown;
}

/**
 * Sends one request and reads the JSON answer within `timeoutMs`.
 *
 * @throws Error saying only that `origin` could not be reached or did not answer in time: the
 * URL (which may hold a token) and the runtime's own message are never part of it.
 */
export async function requestJson(url: string, init: RequestInit, origin: string, timeoutMs = networkTimeoutMs): Promise<JsonAnswer> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    // The cause stays attached for a debugger; only the message is ever printed.
    throw new Error(timedOut ? `${origin} did not answer within ${timeoutMs / 1000} s` : `cannot reach ${origin}`, { cause: error });
  }
  const text = await response.text().catch(() => '');
  let body: unknown;
  try {
    body = JSON.parse(text) as unknown;
  } catch {
    body = undefined;
  }
  return { status: response.status, statusText: response.statusText, headers: response.headers, body };
}

/** The scheme, host and port of `url` (what a person may see: no path, no credentials). */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'the configured address';
  }
}

/** The message of anything thrown. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
