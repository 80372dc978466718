/**
 * A person's message as it crosses from the Worker's webhook into its conversation's Durable
 * Object: the neutral {@link InboundMessage} without what does not cross an RPC call (the
 * platform's raw object, the attachments' download functions). Files are not read on Workers:
 * a turn is told what was attached, as after a restart on Node.
 */
import type { Attachment, InboundMessage } from '../channels/types.ts';

/** The attachment as it is kept: what it was, not its bytes. */
export type WireAttachment = Pick<Attachment, 'kind' | 'mediaType' | 'name' | 'size'>;

/** A message on its way into its conversation's object. */
export interface WireMessage extends Omit<InboundMessage, 'raw' | 'attachments'> {
  attachments: WireAttachment[];
  /**
   * Where a platform wants the answer sent other than by the conversation's address: Discord's
   * interaction (its application and token: the answer edits the deferred reply).
   */
  interaction?: { applicationId: string; token: string };
}

/** `message` ready to cross into its object. */
export function toWireMessage(message: InboundMessage, interaction?: WireMessage['interaction']): WireMessage {
  const { raw: _raw, attachments, ...rest } = message;
  return {
    ...rest,
    attachments: attachments.map(({ kind, mediaType, name, size }) => ({ kind, mediaType, ...(name !== undefined && { name }), ...(size !== undefined && { size }) })),
    ...(interaction && { interaction }),
  };
}

/** The message again as the gateway's parts take it (attachments that say their bytes were not kept). */
export function fromWireMessage(message: WireMessage): InboundMessage {
  const { interaction: _interaction, attachments, ...rest } = message;
  return {
    ...rest,
    raw: undefined,
    attachments: attachments.map((attachment) => ({ ...attachment, download: () => Promise.reject(new Error('files are not read on Workers')) })),
  };
}
