/**
 * One Socket Mode envelope handed to bolt's `processEvent`, with an `ack` that decides when the
 * envelope is acknowledged on the socket; the Socket Mode twin of the webhook's answers:
 *
 * - An `events_api` envelope is acknowledged only when bolt has finished with it, that is once
 *   the gateway has the message on record (bolt acks events before its listeners run; that early
 *   ack is ignored here). When the gateway could not take it ({@link NotAcceptedError}), it is
 *   left unacknowledged, so Slack delivers it again (`retry_attempt`); other failures are reported
 *   as outside errors (see `../outside-errors.ts`) and acknowledged.
 * - An `interactive` or `slash_commands` envelope is acknowledged as soon as its listener acks,
 *   with the listener's answer as the envelope's `payload` (a slash command's ephemeral reply).
 * - While the adapter is stopped nothing is acknowledged.
 */
import type { App } from '@slack/bolt';
import type { OutsideErrors } from '../outside-errors.ts';
import type { Scrub } from './slack-errors.ts';
import { failedEventType, notAccepted, originalError } from './webhook.ts';

/** An envelope as `SocketModeClient` hands it to `slack_event` listeners. */
export interface SocketEnvelope {
  /** `events_api`, `interactive`, `slash_commands`, … */
  type: string;
  envelope_id: string;
  /** The envelope's `payload`: what Slack would post over HTTP. */
  body: Record<string, unknown>;
  retry_num?: number;
  retry_reason?: string;
  /** Sends `{ envelope_id, payload }` on the socket. */
  ack(payload?: Record<string, unknown>): Promise<void>;
}

/** Where {@link dispatchEnvelope} reports. */
export interface DispatchContext {
  log(line: string): void;
  scrub: Scrub;
  /** Where an envelope whose handling threw is reported (it is then acknowledged and dropped). */
  outside: OutsideErrors;
}

/** The envelope payload for what a listener passed to `ack`. */
function ackPayload(answer: unknown): Record<string, unknown> | undefined {
  if (answer === undefined || answer === '') return undefined;
  if (typeof answer === 'string') return { text: answer };
  return answer as Record<string, unknown>;
}

function describeEnvelope(envelope: SocketEnvelope): string {
  const { body } = envelope;
  const event = body.event as { type?: unknown } | undefined;
  if (typeof body.event_id === 'string') return `event ${body.event_id} (${String(event?.type)})`;
  if (typeof body.command === 'string') return `command ${body.command}`;
  return `${envelope.type} envelope`;
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Hands one envelope to `app` (undefined while stopped) and acknowledges it when it is time. */
export async function dispatchEnvelope(app: App | undefined, envelope: SocketEnvelope, context: DispatchContext): Promise<void> {
  const { log, scrub } = context;
  if (!app) {
    log(`slack: ${describeEnvelope(envelope)} left for redelivery: not running`);
    return;
  }
  let acked = false;
  const acknowledge = async (answer?: unknown) => {
    if (acked) return;
    acked = true;
    // A lost acknowledgement only means Slack delivers the envelope again.
    await envelope.ack(ackPayload(answer)).catch((error: unknown) => log(scrub(`slack: could not acknowledge ${describeEnvelope(envelope)}: ${describeError(error)}`)));
  };
  const acksEarly = envelope.type !== 'events_api';
  try {
    await app.processEvent({
      body: envelope.body,
      ack: async (answer?: unknown) => {
        if (acksEarly) await acknowledge(answer);
      },
      ...(envelope.retry_num !== undefined ? { retryNum: envelope.retry_num } : {}),
      ...(envelope.retry_reason ? { retryReason: envelope.retry_reason } : {}),
    });
  } catch (error) {
    const refused = notAccepted(error);
    if (refused && !acked) {
      log(scrub(`slack: ${describeEnvelope(envelope)} left for redelivery: ${refused.message}`));
      return;
    }
    context.outside.report(failedEventType(envelope.body), originalError(error));
  }
  await acknowledge();
}
