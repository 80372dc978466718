export { createDeliveryLedger, type DeliveryLedger, type DeliveryLedgerOptions } from './delivery-ledger.ts';
export { silentReplyText, type DeliveryProgress, type LedgerEntry, type LedgerStatus, type NewLedgerEntry } from './ledger-entry.ts';
