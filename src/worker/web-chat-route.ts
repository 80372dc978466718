/**
 * A request of the web chat's API, sent on to the Durable Object of its browser's conversation
 * (`web:<clientId>`), which holds that browser's event streams and answers its messages. The
 * client id is the query's (`GET`) or the JSON body's (`POST`); the body is read once, with the
 * web chat's limit, and handed on as it came. The object's answer is returned as it is, so an
 * event stream flows through.
 */
import * as z from 'zod';
import { webSessionKey } from '../channels/web/web-inbound.ts';
import { clientIdPattern, errorResponse, parseClientIdQuery, parseJsonBody, type Parsed } from '../channels/web/web-requests.ts';
import { bodyLimits } from '../core/body-limits.ts';
import { readLimitedBytes, requestWithBody, tooLarge } from '../core/read-limited-body.ts';
import type { WorkerEnv } from './worker-env.ts';

/** Only the client id is read here; the object checks the rest of the body. */
const bodyWithClientId = z.object({
  clientId: z
    .string({ error: (issue) => (issue.input === undefined ? 'clientId is required' : 'clientId must be a string') })
    .regex(clientIdPattern, 'clientId must be 16 to 64 letters, digits, "-" or "_"'),
});

/** Sends `request` (a `/web/...` request past the login) to its browser's conversation. */
export async function toConversation(request: Request, env: WorkerEnv): Promise<Response> {
  let forwarded: Request;
  let clientId: Parsed<string>;
  if (request.method === 'POST') {
    const bytes = await readLimitedBytes(request, bodyLimits.webChat);
    if (bytes === undefined) return tooLarge(bodyLimits.webChat);
    const parsed = await parseJsonBody(requestWithBody(request, bytes), bodyWithClientId);
    clientId = parsed.ok ? { ok: true, value: parsed.value.clientId } : parsed;
    forwarded = requestWithBody(request, bytes);
  } else if (request.method === 'GET' || request.method === 'HEAD') {
    clientId = parseClientIdQuery(request);
    forwarded = new Request(request.url, { method: request.method, headers: request.headers });
  } else {
    return errorResponse(405, 'the web chat takes GET and POST only');
  }
  if (!clientId.ok) return clientId.response;
  // The session cookie stays here: the object needs no credentials, the login was passed.
  forwarded.headers.delete('cookie');
  const stub = env.CONVERSATIONS.get(env.CONVERSATIONS.idFromName(webSessionKey(clientId.value)));
  return stub.fetch(forwarded);
}
