export { createAccessPolicy, type AccessPolicy, type AccessDecision, type AccessConfig, type AccessPolicyOptions } from './access-policy.ts';
export { PairingBook, PairingError, type DeniedPerson, type PairingBookOptions, type PairingListing, type PairingPerson, type PairingRequest, type PairedPerson } from './pairing-book.ts';
export { generatePairingCode, normalizePairingCode, pairingAlphabet, pairingCodeLength } from './pairing-code.ts';
export { PairingNotifier, type PairingNotifierOptions } from './pairing-notifier.ts';
export { groupNoticeText, pairingNoticeText } from './pairing-notice.ts';
export { GroupBook, isGroupRequest, type ApprovedGroup, type DeniedGroup, type GroupAsker, type GroupBookOptions, type GroupCodeOutcome, type GroupListing, type GroupRequest } from './group-book.ts';
export { type GroupDecision, type GroupJoinOutcome } from './group-access.ts';
export { describeGroup, groupLabel, groupOf, parseGroupLabel, sameGroup, type PairingGroup } from './pairing-group.ts';
