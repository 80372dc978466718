/**
 * What an earlier process left, read before any adapter starts: replies recorded and never
 * delivered, and messages accepted and never answered. Work this process takes on afterwards is
 * then never mistaken for it (and never done twice).
 */
import { errorMessage } from '../core/errors.ts';
import type { Outbox } from './files/outbox.ts';
import type { Inbox, InboxEntry } from './inbox.ts';
import type { DeliveryLedger } from './ledger/delivery-ledger.ts';
import type { LedgerEntry } from './ledger/ledger-entry.ts';

/** The leftovers, in the order they came. */
export interface LeftoverWork {
  undelivered: LedgerEntry[];
  unanswered: InboxEntry[];
}

/**
 * Reads the leftovers. Outbox copies no pending reply carries are removed (their replies were
 * settled or never made); a message whose reply is on record was answered (a crash came between
 * recording the reply and clearing the message), so it is cleared, not answered again.
 */
export async function readLeftoverWork(parts: { ledger: DeliveryLedger; inbox: Inbox; outbox: Outbox; log: (line: string) => void }): Promise<LeftoverWork> {
  const undelivered = await parts.ledger.pending();
  await parts.outbox.sweep(undelivered.flatMap((entry) => entry.files ?? [])).catch((error: unknown) => parts.log(`outbox not swept: ${errorMessage(error)}`));
  const recorded = new Set(undelivered.flatMap((entry) => entry.answers ?? []));
  const unanswered: InboxEntry[] = [];
  for (const entry of await parts.inbox.pending()) {
    if (recorded.has(entry.key)) await parts.inbox.done(entry.key);
    else unanswered.push(entry);
  }
  return { undelivered, unanswered };
}
