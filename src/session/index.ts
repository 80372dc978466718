export type * from './types.ts';
export { SessionTree, sessionLogKey, type SessionTreeOptions, type SessionSeed } from './session-tree.ts';
export { SessionManager, encodeSessionKey, decodeSessionKey, type SessionManagerOptions, type SessionSummary } from './session-manager.ts';
export { buildContextFromPath, compactionSummaryMessage, COMPACTION_SUMMARY_PREFIX } from './build-context.ts';
export { createEntryId, createSessionId } from './ids.ts';
