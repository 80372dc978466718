/**
 * The one place where a provider failure becomes a {@link ProviderError}. It reads the SDK
 * errors structurally (status, headers, body, name) so it needs no vendor SDK import and
 * treats the Anthropic and OpenAI SDKs, and errors raised inside an SSE stream, alike.
 */
import { ProviderError, type ErrorKind } from '../core/errors.ts';
import { redactSecrets } from './redact-secrets.ts';

/** Response headers as the SDKs expose them (`Headers`) or as a plain record. */
export type HeadersLike =
  | { get(name: string): string | null }
  | Record<string, string | string[] | undefined>
  | null
  | undefined;

function header(headers: HeadersLike, name: string): string | undefined {
  if (headers == null) return undefined;
  if (typeof headers.get === 'function') return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  const record = headers as Record<string, string | string[] | undefined>;
  for (const [key, value] of Object.entries(record)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

/**
 * The delay a response asks for before the next attempt, in milliseconds: `retry-after-ms`
 * (OpenAI), else `retry-after` as seconds or as an HTTP date.
 *
 * @returns `undefined` when no usable header is present.
 */
export function parseRetryAfter(headers: HeadersLike, now: number = Date.now()): number | undefined {
  const milliseconds = header(headers, 'retry-after-ms');
  if (milliseconds !== undefined && milliseconds.trim() !== '') {
    const value = Number(milliseconds);
    if (Number.isFinite(value) && value >= 0) return Math.round(value);
  }
  const retryAfter = header(headers, 'retry-after')?.trim();
  if (retryAfter === undefined || retryAfter === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(retryAfter)) return Math.round(Number(retryAfter) * 1000);
  const date = Date.parse(retryAfter);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** What we could read off a thrown value. */
interface Facts {
  status: number | undefined;
  headers: HeadersLike;
  /** Error codes and types of the body (`overloaded_error`, `insufficient_quota`, ...), most specific first. */
  tags: string[];
  /** The provider's own explanation, when the body has one. */
  apiMessage: string | undefined;
  /** The message of the error itself, with the messages of its causes. */
  message: string;
  /** Error names and network codes along the cause chain. */
  names: string[];
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function stringField(record: unknown, key: string): string | undefined {
  if (!isRecord(record)) return undefined;
  const value = record[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function readFacts(error: unknown): Facts {
  const record = isRecord(error) ? error : {};
  const status = typeof record.status === 'number' ? record.status : undefined;
  // Anthropic bodies are `{type:'error', error:{type, message}}`; OpenAI's SDK keeps the inner
  // `{message, type, code}`. An error thrown for an SSE `error` event has the same shapes.
  const body = record.error;
  const inner = isRecord(body) && isRecord(body.error) ? body.error : body;
  const details = isRecord(inner) ? inner.details : undefined;
  const tags = [
    stringField(details, 'error_code'),
    stringField(record, 'errorCode'),
    stringField(inner, 'code'),
    stringField(record, 'code'),
    stringField(inner, 'type'),
    stringField(record, 'type'),
    // Google's canonical status (`INVALID_ARGUMENT`, `RESOURCE_EXHAUSTED`), Gemini's endpoint.
    stringField(inner, 'status'),
  ].filter((tag): tag is string => tag !== undefined);
  const apiMessage = stringField(record, 'apiMessage') ?? stringField(inner, 'message');

  const messages: string[] = [];
  const names: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current !== undefined && current !== null; depth++) {
    if (current instanceof Error) {
      messages.push(current.message);
      names.push(current.name, current.constructor.name);
    } else if (depth === 0) {
      messages.push(typeof current === 'string' ? current : safeStringify(current));
    }
    const networkCode = stringField(current, 'code');
    if (networkCode !== undefined) names.push(networkCode);
    current = isRecord(current) ? current.cause : undefined;
  }
  const unique = messages.filter((text, index) => text !== '' && messages.indexOf(text) === index);
  return { status, headers: record.headers as HeadersLike, tags, apiMessage, message: unique.join(': '), names };
}

function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

const billingText = /credit balance is too low|insufficient[_ ]quota|exceeded your current quota|billing[_ ]hard[_ ]limit|payment required/i;
const contextText =
  /prompt is too long|context[_ ]length[_ ]exceeded|maximum context length|context window|input is too long|too many (input )?tokens|exceeds the (model's )?(context|maximum)/i;
const contentText = /content[_ ](filter|policy|management)|usage polic|safety system|responsible ai polic/i;
// Google answers a wrong API key with a 400 INVALID_ARGUMENT whose reason is API_KEY_INVALID.
const invalidKeyText = /API key not valid|API_KEY_INVALID/i;
const timeoutNames = /timeout|timedout|ETIMEDOUT|UND_ERR_(CONNECT|HEADERS|BODY)_TIMEOUT/i;

// Codes (Anthropic `error.details.error_code`, OpenAI `code`) and types that decide the kind
// whatever the status says: a quota error is a 429 but will not pass with waiting.
const kindByCode: Record<string, ErrorKind> = {
  insufficient_quota: 'BILLING',
  billing_error: 'BILLING',
  billing_hard_limit_reached: 'BILLING',
  contract_spend_limit_reached: 'BILLING',
  enforced_spend_limit_reached: 'BILLING',
  linked_organization_spend_limit_reached: 'BILLING',
  linked_organization_billing_unavailable: 'BILLING',
  organization_on_hold: 'AUTH_PERMANENT',
  context_length_exceeded: 'CONTEXT_OVERFLOW',
  request_too_large: 'CONTEXT_OVERFLOW',
  content_filter: 'CONTENT_BLOCKED',
  content_policy_violation: 'CONTENT_BLOCKED',
  invalid_api_key: 'AUTH',
  model_not_found: 'MODEL_NOT_FOUND',
  ramp_limit_exceeded: 'RATE_LIMIT',
};

// Error types of bodies that come without a status (SSE `error` events).
const kindByType: Record<string, ErrorKind> = {
  overloaded_error: 'OVERLOADED',
  api_error: 'SERVER_ERROR',
  server_error: 'SERVER_ERROR',
  timeout_error: 'TIMEOUT',
  rate_limit_error: 'RATE_LIMIT',
  rate_limit_exceeded: 'RATE_LIMIT',
  tokens: 'RATE_LIMIT',
  requests: 'RATE_LIMIT',
  authentication_error: 'AUTH',
  permission_error: 'AUTH_PERMANENT',
  not_found_error: 'MODEL_NOT_FOUND',
  invalid_request_error: 'FORMAT_ERROR',
  // Google's canonical statuses, for errors that come without an HTTP status (inside a stream).
  RESOURCE_EXHAUSTED: 'RATE_LIMIT',
  UNAVAILABLE: 'OVERLOADED',
  INTERNAL: 'SERVER_ERROR',
  DEADLINE_EXCEEDED: 'TIMEOUT',
  UNAUTHENTICATED: 'AUTH',
  PERMISSION_DENIED: 'AUTH_PERMANENT',
  NOT_FOUND: 'MODEL_NOT_FOUND',
  INVALID_ARGUMENT: 'FORMAT_ERROR',
};

function kindFromStatus(status: number): ErrorKind {
  if (status === 429) return 'RATE_LIMIT';
  if (status === 503 || status === 529) return 'OVERLOADED';
  if (status === 504 || status === 408) return 'TIMEOUT';
  if (status === 413) return 'CONTEXT_OVERFLOW';
  if (status === 401) return 'AUTH';
  if (status === 403) return 'AUTH_PERMANENT';
  if (status === 402) return 'BILLING';
  if (status === 404) return 'MODEL_NOT_FOUND';
  if (status === 400 || status === 422) return 'FORMAT_ERROR';
  if (status >= 500) return 'SERVER_ERROR';
  return 'UNKNOWN';
}

function classifyKind(facts: Facts): ErrorKind {
  const { status } = facts;
  if (status !== undefined && status >= 500) return kindFromStatus(status);
  for (const tag of facts.tags) {
    const kind = kindByCode[tag];
    if (kind !== undefined) return kind;
  }
  // Messages are the only signal for some failures (Anthropic's "prompt is too long" and
  // "credit balance is too low" are plain 400 invalid_request_errors).
  const text = `${facts.apiMessage ?? ''} ${facts.message}`;
  if (billingText.test(text)) return 'BILLING';
  const requestProblem = status === undefined || status === 400 || status === 413 || status === 422;
  if (requestProblem && invalidKeyText.test(text)) return 'AUTH';
  if (requestProblem && contextText.test(text)) return 'CONTEXT_OVERFLOW';
  if ((requestProblem || status === 403) && contentText.test(text)) return 'CONTENT_BLOCKED';
  if (status !== undefined) return kindFromStatus(status);
  for (const tag of facts.tags) {
    const kind = kindByType[tag];
    if (kind !== undefined) return kind;
  }
  if (facts.names.some((name) => timeoutNames.test(name))) return 'TIMEOUT';
  return 'UNKNOWN';
}

const descriptions: Record<ErrorKind, string> = {
  RATE_LIMIT: 'rate limit reached',
  OVERLOADED: 'overloaded',
  SERVER_ERROR: 'server error',
  TIMEOUT: 'request timed out',
  CONTEXT_OVERFLOW: 'context window exceeded',
  UNKNOWN: 'request failed',
  AUTH: 'authentication failed',
  AUTH_PERMANENT: 'permission denied',
  BILLING: 'billing or quota problem',
  MODEL_NOT_FOUND: 'model not found',
  CONTENT_BLOCKED: 'content blocked by policy',
  FORMAT_ERROR: 'request rejected',
};

const maxDetailLength = 500;

/**
 * Turns anything a provider call threw (SDK `APIError`s, connection errors and timeouts,
 * errors raised for an SSE `error` event) into a {@link ProviderError} with a kind that decides
 * retry and compaction. A `ProviderError` passes through unchanged.
 *
 * The message names the provider, the kind and the HTTP status, then the provider's own
 * explanation with credentials removed. The raw SDK error is not attached as `cause`, because
 * its message may echo a key.
 *
 * @param provider - provider name for the message and the error's `provider` field.
 */
export function classifyError(error: unknown, provider: string): ProviderError {
  if (error instanceof ProviderError) return error;
  const facts = readFacts(error);
  const kind = classifyKind(facts);
  const retryAfterMs = parseRetryAfter(facts.headers);
  let detail = redactSecrets(facts.apiMessage ?? facts.message).trim();
  if (detail.length > maxDetailLength) detail = `${detail.slice(0, maxDetailLength)}...`;
  const status = facts.status === undefined ? '' : ` (HTTP ${facts.status})`;
  const message = `${provider}: ${descriptions[kind]}${status}${detail === '' ? '' : `: ${detail}`}`;
  return new ProviderError(message, { provider, kind, statusCode: facts.status, retryAfterMs });
}
