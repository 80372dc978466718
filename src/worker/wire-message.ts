/**
 * A person's message as it crosses from the Worker's webhook into its conversation's Durable
 * Object: the neutral {@link InboundMessage} without what does not cross an RPC call (the
 * platform's raw object, the attachments' download functions). An attachment carries instead its
 * platform's reference (Telegram's file_id, Slack's private URL): its turn fetches it, not the
 * webhook, which must answer the platform quickly (see `inbound-files.ts`).
 */
import type { Attachment, InboundMessage } from '../channels/types.ts';

/** The attachment as it is kept: what it was, and where its platform keeps it; not its bytes. */
export interface WireAttachment extends Pick<Attachment, 'kind' | 'mediaType' | 'name' | 'size' | 'recording'> {
  /**
   * The platform's reference to fetch it by, when the Worker can: Telegram's `file_id`, Slack's
   * `url_private_download`. Never a URL holding a token (Telegram's download URL does). Discord's
   * interactions bring no files on Workers, so none has one there.
   */
  ref?: string;
}

/** A message on its way into its conversation's object. */
export interface WireMessage extends Omit<InboundMessage, 'raw' | 'attachments'> {
  attachments: WireAttachment[];
  /**
   * Where a platform wants the answer sent other than by the conversation's address: Discord's
   * interaction (its application and token: the answer edits the deferred reply).
   */
  interaction?: { applicationId: string; token: string };
}

/**
 * `message` ready to cross into its object; `refs` are its attachments' platform references, in
 * the order of `message.attachments` (see {@link WireAttachment.ref}).
 */
export function toWireMessage(message: InboundMessage, interaction?: WireMessage['interaction'], refs: readonly (string | undefined)[] = []): WireMessage {
  const { raw: _raw, attachments, ...rest } = message;
  return {
    ...rest,
    attachments: attachments.map(({ kind, mediaType, name, size, recording }, index) => ({
      kind,
      mediaType,
      ...(name !== undefined && { name }),
      ...(size !== undefined && { size }),
      // A voice note's kind and length: its turn transcribes it.
      ...(recording !== undefined && { recording }),
      ...(refs[index] !== undefined && { ref: refs[index] }),
    })),
    ...(interaction && { interaction }),
  };
}

/**
 * The message again as the gateway's parts take it. Its attachments cannot be downloaded from
 * here: a turn reads them by their references (`inbound-files.ts`).
 */
export function fromWireMessage(message: WireMessage): InboundMessage {
  const { interaction: _interaction, attachments, ...rest } = message;
  return {
    ...rest,
    raw: undefined,
    attachments: attachments.map(({ ref: _ref, ...attachment }) => ({ ...attachment, download: () => Promise.reject(new Error('a file is read by its turn on Workers')) })),
  };
}
