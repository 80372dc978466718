/**
 * The body of a request Slack posts, in its three shapes: Events API callbacks as JSON,
 * interactivity payloads as a form with one `payload` field holding JSON, slash commands as a
 * plain form.
 */

/** A parsed request body (fields as Slack sent them). */
export type SlackBody = Record<string, unknown>;

/** The body, or undefined when it is none of Slack's shapes. */
export function parseSlackBody(rawBody: string, contentType: string): SlackBody | undefined {
  try {
    if (contentType.startsWith('application/json')) {
      const body: unknown = JSON.parse(rawBody);
      return typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as SlackBody) : undefined;
    }
    if (contentType.startsWith('application/x-www-form-urlencoded')) {
      const form = new URLSearchParams(rawBody);
      const payload = form.get('payload');
      if (payload === null) return Object.fromEntries(form);
      const body: unknown = JSON.parse(payload);
      return typeof body === 'object' && body !== null ? (body as SlackBody) : undefined;
    }
  } catch {
    return undefined;
  }
  return undefined;
}
