export { createAccessPolicy, type AccessPolicy, type AccessDecision, type AccessConfig, type AccessPolicyOptions } from './access-policy.ts';
export { PairingBook, PairingError, type DeniedPerson, type PairingBookOptions, type PairingListing, type PairingPerson, type PairingRequest, type PairedPerson } from './pairing-book.ts';
export { generatePairingCode, normalizePairingCode, pairingAlphabet, pairingCodeLength } from './pairing-code.ts';
export { PairingNotifier, type PairingNotifierOptions } from './pairing-notifier.ts';
export { pairingNoticeText } from './pairing-notice.ts';
