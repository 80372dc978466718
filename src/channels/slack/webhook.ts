/**
 * The route Slack posts to: Events API callbacks, interactivity (button presses) and slash
 * commands, all at one path. The body is read with a limit (`bodyLimits.slackWebhook`, 1 MiB;
 * reading stops there and the answer is 413) before its signature is checked, so a stranger's
 * huge body is never held; every request is then verified before anything is taken from it (401
 * otherwise: a wrong signature, or a timestamp more than five minutes off either way).
 * `url_verification` is answered with its challenge. The rest goes to bolt's `processEvent`, with
 * an `ack` that decides the HTTP answer:
 *
 * - An event is answered only when bolt has finished with it, that is once the gateway has the
 *   message on record (bolt acks events before its listeners run; that early ack is ignored
 *   here). When the gateway could not take it ({@link NotAcceptedError}), the answer is 503 so
 *   Slack delivers it again; other failures are reported as outside errors (see
 *   `../outside-errors.ts`) and answered 200.
 * - A button press or a slash command is answered as soon as its listener acks.
 */
import type { App } from '@slack/bolt';
import { bodyLimits } from '../../core/body-limits.ts';
import { readLimitedBody, tooLarge } from '../../core/read-limited-body.ts';
import { NotAcceptedError, type ChannelRoute } from '../types.ts';
import type { OutsideErrors } from '../outside-errors.ts';
import { parseSlackBody, type SlackBody } from './request-body.ts';
import type { Scrub } from './slack-errors.ts';
import { refusalOf } from './verify-request.ts';

/** Where Slack posts unless configured otherwise. */
export const defaultWebhookPath = '/webhooks/slack';

/** Options of {@link createWebhookRoute}. */
export interface WebhookRouteOptions {
  path: string;
  signingSecret: string;
  /** The clock (ms since the epoch) the request timestamp is checked against. */
  now(): number;
  /** The bolt app while the adapter runs, else undefined (requests are then answered 503). */
  app(): App | undefined;
  log(line: string): void;
  scrub: Scrub;
  /** Where a request whose handling threw is reported (it is then answered 200 and dropped). */
  outside: OutsideErrors;
}

/** The error bolt wrapped (its `UnknownError` keeps the thrown one as `original`), or `error` itself. */
export function originalError(error: unknown): unknown {
  const original = (error as { original?: unknown } | null)?.original;
  return original instanceof Error ? original : error;
}

/** What a body whose handling threw was about, for the report: its event's type, the command, or the body's type. */
export function failedEventType(body: Record<string, unknown>): string {
  const event = body.event as { type?: unknown } | undefined;
  const type = event?.type ?? (typeof body.command === 'string' ? 'slash_command' : body.type);
  return typeof type === 'string' ? type : 'request';
}

/** The gateway's refusal inside bolt's error wrapping, if that is what `error` is. */
export function notAccepted(error: unknown): NotAcceptedError | undefined {
  if (error instanceof NotAcceptedError) return error;
  const original = (error as { original?: unknown } | null)?.original;
  return original instanceof NotAcceptedError ? original : undefined;
}

/** The HTTP answer for what a listener passed to `ack`. */
function ackResponse(answer: unknown): Response {
  if (answer === undefined || answer === '') return new Response(null, { status: 200 });
  if (typeof answer === 'string') return new Response(answer, { status: 200, headers: { 'content-type': 'text/plain; charset=utf-8' } });
  return Response.json(answer);
}

function describeBody(body: SlackBody): string {
  const event = body.event as { type?: unknown } | undefined;
  if (typeof body.event_id === 'string') return `event ${body.event_id} (${String(event?.type)})`;
  if (typeof body.command === 'string') return `command ${body.command}`;
  return String(body.type ?? 'request');
}

/** The POST route receiving Slack's requests for the app `options.app()`. */
export function createWebhookRoute(options: WebhookRouteOptions): ChannelRoute {
  const { log, scrub } = options;

  async function dispatch(app: App, body: SlackBody, headers: Headers): Promise<Response> {
    let settle: (response: Response) => void = () => {};
    const acked = new Promise<Response>((resolve) => (settle = resolve));
    const retryNum = Number(headers.get('x-slack-retry-num') ?? Number.NaN);
    const retryReason = headers.get('x-slack-retry-reason') ?? undefined;
    const processed = app
      .processEvent({
        body,
        ack: async (answer?: unknown) => settle(ackResponse(answer)),
        ...(Number.isInteger(retryNum) ? { retryNum } : {}),
        ...(retryReason !== undefined ? { retryReason } : {}),
      })
      .then(
        () => new Response(null, { status: 200 }),
        (error: unknown) => {
          const refused = notAccepted(error);
          if (refused) {
            log(scrub(`slack: ${describeBody(body)} left for redelivery: ${refused.message}`));
            return new Response('not taken now, deliver again', { status: 503 });
          }
          // Its handling threw (bolt or a listener): reported and dropped; any answer but 2xx
          // would make Slack deliver it again.
          options.outside.report(failedEventType(body), originalError(error));
          return new Response(null, { status: 200 });
        },
      );
    return body.type === 'event_callback' ? processed : Promise.race([acked, processed]);
  }

  return {
    method: 'POST',
    path: options.path,
    async handler(request) {
      // Read with a limit before the signature is checked: an unsigned stranger's huge body is
      // refused without being held.
      const rawBody = await readLimitedBody(request, bodyLimits.slackWebhook);
      if (rawBody === undefined) {
        log(`slack: request refused: its body is too large (over ${bodyLimits.slackWebhook} bytes)`);
        return tooLarge(bodyLimits.slackWebhook);
      }
      const refusal = refusalOf(rawBody, request.headers, options.signingSecret, options.now());
      if (refusal) {
        log(`slack: request refused: ${refusal}`);
        return new Response('invalid signature', { status: 401 });
      }
      const body = parseSlackBody(rawBody, request.headers.get('content-type') ?? '');
      if (!body) return new Response('bad request', { status: 400 });
      if (body.type === 'url_verification') return Response.json({ challenge: body.challenge });
      if (body.ssl_check !== undefined) return new Response(null, { status: 200 });
      const app = options.app();
      if (!app) return new Response('not running', { status: 503 });
      return dispatch(app, body, request.headers);
    },
  };
}
