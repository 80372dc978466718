export { createDeliveryLedger, type DeliveryLedger, type DeliveryLedgerOptions } from './delivery-ledger.ts';
export { silentReplyText, type LedgerEntry, type LedgerStatus, type NewLedgerEntry, type SettledLedgerEntry } from './ledger-entry.ts';
