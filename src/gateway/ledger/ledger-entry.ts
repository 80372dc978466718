/**
 * What the delivery ledger keeps about one logical reply.
 */
import type { ConversationAddress, OutboundFile } from '../../channels/types.ts';

/**
 * - `pending`: recorded, not yet delivered (possibly after failed attempts that may be retried);
 * - `failed`: given up (a final failure), shown by `/status`.
 *
 * A delivered reply, or one that was exactly `[SILENT]`, is no longer in the ledger.
 */
export type LedgerStatus = 'pending' | 'failed';

/** A reply to record, before it is sent. */
export interface NewLedgerEntry {
  sessionKey: string;
  address: ConversationAddress;
  /** Markdown, as the adapter's `send` takes it. */
  text: string;
  /** Files sent after the text (copies in the gateway's outbox). */
  files?: OutboundFile[];
  /** Platform message id to reply to. */
  replyTo?: string;
  /**
   * Id of the streamed preview message the final text replaces (by editing it), kept so that a
   * reply sent again after a restart replaces the half-streamed preview too.
   */
  previewId?: string;
  /** Unique per logical reply (e.g. `<inbound dedupe key>#<n>`); the entry's id is derived from it, so recording it again gives the same id. */
  turnId: string;
  /**
   * Inbox keys of the messages this reply answers. Recording the reply and clearing those
   * messages from the inbox are two steps; after a crash between them, a restart sees the
   * messages answered here and does not answer them again.
   */
  answers?: string[];
}

/** A recorded reply. Times are milliseconds since the epoch. */
export interface LedgerEntry extends NewLedgerEntry {
  id: string;
  status: LedgerStatus;
  createdAt: number;
  updatedAt: number;
  /** Failed delivery attempts so far. */
  attempts: number;
  /** The last failure's message. */
  error?: string;
  /** Ids of the sent platform messages (one per chunk). */
  platformIds?: string[];
  /**
   * What of a long reply, or one with files, has arrived so far. A resend after a restart sends
   * only the rest.
   */
  sent?: DeliveryProgress;
}

/** The text of a reply that is recorded but never sent. */
export const silentReplyText = '[SILENT]';

/** What of a reply has arrived (see {@link LedgerEntry.sent}). */
export interface DeliveryProgress {
  /** The text's parts, once all of them were sent (unset while the text is not through). */
  text?: string[];
  /** The text's parts delivered so far, while some are left (a long reply split in parts). */
  textParts?: string[];
  /** The files sent so far, one by one after the text. */
  files: string[];
}
