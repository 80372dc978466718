/**
 * The edge of the web chat: request bodies and query strings validated with zod, and the JSON
 * answers. Everything past this file works with trusted plain values.
 */
import * as z from 'zod';
import { bodyLimits } from '../../core/body-limits.ts';
import { readLimitedBody, tooLarge } from '../../core/read-limited-body.ts';

/** A client id the page made: 16 to 64 letters, digits, `-` or `_`. */
export const clientIdPattern = /^[A-Za-z0-9_-]{16,64}$/;

/** A message id (the page's own, or one the adapter made): 1 to 64 letters, digits, `-` or `_`. */
export const messageIdPattern = /^[A-Za-z0-9_-]{1,64}$/;

/** Longest text a person may send, in characters. */
export const maxInboundText = 100_000;

function requiredString(name: string) {
  return z.string({ error: (issue) => (issue.input === undefined ? `${name} is required` : `${name} must be a string`) });
}

const clientId = requiredString('clientId').regex(clientIdPattern, 'clientId must be 16 to 64 letters, digits, "-" or "_"');

/** `POST /web/messages`. */
export const messageBodySchema = z.object({
  clientId,
  id: requiredString('id').regex(messageIdPattern, 'id must be 1 to 64 letters, digits, "-" or "_"'),
  text: requiredString('text')
    .max(maxInboundText, `text must be at most ${maxInboundText} characters`)
    .refine((text) => text.trim().length > 0, 'text must not be empty'),
});

/** A message as the page sends it. */
export type MessageBody = z.infer<typeof messageBodySchema>;

/** `POST /web/actions`. `id` (optional) makes a retried press recognisable. */
export const actionBodySchema = z.object({
  clientId,
  data: requiredString('data')
    .min(1, 'data must not be empty')
    .refine((data) => new TextEncoder().encode(data).length <= 64, 'data must be at most 64 bytes'),
  messageId: requiredString('messageId').regex(messageIdPattern, 'messageId must be 1 to 64 letters, digits, "-" or "_"').optional(),
  id: requiredString('id').regex(messageIdPattern, 'id must be 1 to 64 letters, digits, "-" or "_"').optional(),
});

/** A button press as the page sends it. */
export type ActionBody = z.infer<typeof actionBodySchema>;

/**
 * `POST /web/stop`: the page's Stop button. Only the browser's own client id and an id for the
 * press; nothing else is taken (an unknown field is refused, not ignored), so a request can never
 * name a conversation other than the browser's own.
 */
export const stopBodySchema = z.strictObject({
  clientId,
  id: requiredString('id').regex(messageIdPattern, 'id must be 1 to 64 letters, digits, "-" or "_"'),
});

/** A press of the Stop button as the page sends it. */
export type StopBody = z.infer<typeof stopBodySchema>;

/** A parse that either gave a value or the response to send instead. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; response: Response };

/** A JSON answer. */
export function jsonResponse(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' },
  });
}

/** A JSON error answer: `{ "error": message }`. */
export function errorResponse(status: number, message: string): Response {
  return jsonResponse(status, { error: message });
}

function describeIssues(error: z.ZodError): string {
  return error.issues.map((issue) => (issue.path.length > 0 ? issue.message : `body: ${issue.message}`)).join('; ');
}

/**
 * Reads a JSON body (at most `bodyLimits.webChat` bytes: 413 past it) and validates it. Only
 * `application/json` is taken: a cross-site form cannot send that without a CORS preflight, which
 * this server never grants.
 */
export async function parseJsonBody<T>(request: Request, schema: z.ZodType<T>): Promise<Parsed<T>> {
  const contentType = request.headers.get('content-type') ?? '';
  if (!/^application\/json\s*(;|$)/i.test(contentType)) {
    return { ok: false, response: errorResponse(415, 'the body must be JSON (content-type: application/json)') };
  }
  // Read with a limit (reading stops there), so a huge body is never held.
  const text = await readLimitedBody(request, bodyLimits.webChat);
  if (text === undefined) return { ok: false, response: tooLarge(bodyLimits.webChat) };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, response: errorResponse(400, 'the body is not valid JSON') };
  }
  const result = schema.safeParse(json);
  if (!result.success) return { ok: false, response: errorResponse(400, describeIssues(result.error)) };
  return { ok: true, value: result.data };
}

/** The `clientId` query parameter, validated. */
export function parseClientIdQuery(request: Request): Parsed<string> {
  const value = new URL(request.url).searchParams.get('clientId');
  if (value === null || value === '') return { ok: false, response: errorResponse(400, 'clientId is required (query parameter)') };
  if (!clientIdPattern.test(value)) return { ok: false, response: errorResponse(400, 'clientId must be 16 to 64 letters, digits, "-" or "_"') };
  return { ok: true, value };
}
