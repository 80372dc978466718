/**
 * The Slack adapter's boundary around `@slack/socket-mode`'s handling of the frames on its
 * socket. The SDK reads each frame in its own `ws_message` listener, an async method nothing
 * awaits: a frame it does not expect makes it throw there, and the rejection would end the
 * process (an `events_api` envelope whose payload has no `event`, as an `app_rate_limited`
 * notice has none, throws `Cannot read properties of undefined (reading 'type')`). The listener
 * is wrapped: what it throws is reported with the envelope's event type, and the envelope is
 * acknowledged so Slack does not deliver the same frame again and again. The socket and every
 * other envelope go on.
 */
import type { SocketModeClient } from '@slack/socket-mode';
import type { OutsideErrors } from '../outside-errors.ts';

type FrameListener = (data: unknown, isBinary: boolean) => unknown;

/** The SDK's acknowledgement (`{ envelope_id, payload }` on the socket), typed private in its declarations. */
type Acknowledging = { send(envelopeId: string, body?: Record<string, unknown>): Promise<void> };

/** The envelope id and the most telling type of a raw frame, read again only once its handling threw. */
function frameFacts(data: unknown): { envelopeId?: string; event: string } {
  try {
    const text = typeof data === 'string' ? data : new TextDecoder().decode(data as Uint8Array);
    const frame = JSON.parse(text) as { envelope_id?: unknown; type?: unknown; payload?: { type?: unknown; event?: { type?: unknown } } } | null;
    const event = frame?.payload?.event?.type ?? frame?.payload?.type ?? frame?.type;
    return { ...(typeof frame?.envelope_id === 'string' ? { envelopeId: frame.envelope_id } : {}), event: typeof event === 'string' ? event : 'frame' };
  } catch {
    return { event: 'frame' };
  }
}

/**
 * Replaces `client`'s own `ws_message` listeners (the SDK's frame handling, bound in its
 * constructor) with guarded calls of the same: a throw or rejection is reported to `outside` and
 * the envelope acknowledged.
 *
 * @example
 * const client = new SocketModeClient({ appToken });
 * guardSocketFrames(client, outside);
 */
export function guardSocketFrames(client: SocketModeClient, outside: OutsideErrors): void {
  const originals = client.listeners('ws_message') as FrameListener[];
  if (originals.length === 0) throw new Error('slack: this @slack/socket-mode reads no ws_message event to guard');
  client.removeAllListeners('ws_message');
  const failed = (data: unknown, error: unknown) => {
    const facts = frameFacts(data);
    outside.report(facts.event, error);
    if (facts.envelopeId) void (client as unknown as Acknowledging).send(facts.envelopeId).catch(() => undefined);
  };
  for (const original of originals) {
    client.on('ws_message', (data: unknown, isBinary: boolean) => {
      try {
        void Promise.resolve(original.call(client, data, isBinary)).catch((error: unknown) => failed(data, error));
      } catch (error) {
        failed(data, error);
      }
    });
  }
}
