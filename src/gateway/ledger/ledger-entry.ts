/**
 * What the delivery ledger keeps about one logical reply.
 */
import type { ConversationAddress } from '../../channels/types.ts';

/**
 * - `pending`: recorded, not yet delivered (possibly after failed attempts that may be retried);
 * - `delivered`: the platform accepted it;
 * - `failed`: given up (a final failure), shown by `/status`;
 * - `silent`: the reply was exactly `[SILENT]`: kept, never sent.
 */
export type LedgerStatus = 'pending' | 'delivered' | 'failed' | 'silent';

/** A reply to record, before it is sent. */
export interface NewLedgerEntry {
  sessionKey: string;
  address: ConversationAddress;
  /** Markdown, as the adapter's `send` takes it. */
  text: string;
  /** Platform message id to reply to. */
  replyTo?: string;
  /** Unique per logical reply (e.g. `<inbound dedupe key>#<n>`): recording it again returns the first id. */
  turnId: string;
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
}

/** The text of a reply that is recorded but never sent. */
export const silentReplyText = '[SILENT]';
