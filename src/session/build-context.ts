/**
 * Turns a session branch into what the model sees.
 */
import type { UserMessage } from '../llm/types.ts';
import type { CompactionEntry, SessionContext, SessionEntry } from './types.ts';

/** The text that opens a compaction summary message; the summary follows inside `<summary>` tags. */
export const COMPACTION_SUMMARY_PREFIX = 'The conversation so far was summarized:';

/**
 * The user message that stands in for everything a compaction replaced:
 * `The conversation so far was summarized:\n\n<summary>\n{summary}\n</summary>`.
 */
export function compactionSummaryMessage(compaction: CompactionEntry): UserMessage {
  return {
    role: 'user',
    content: [{ type: 'text', text: `${COMPACTION_SUMMARY_PREFIX}\n\n<summary>\n${compaction.summary}\n</summary>` }],
    timestamp: compaction.timestamp,
  };
}

/**
 * The context of a root-to-leaf `path`. The latest compaction on the path replaces every entry
 * before its `firstKeptEntryId` by a summary message (see {@link compactionSummaryMessage});
 * kept entries and those after the compaction follow. Message entries become messages,
 * `model_change` sets `model` (also when summarized away), custom entries are left out.
 *
 * @param onWarning told when a compaction's first kept entry is not on the path; the context
 *   then holds the summary and the entries after the compaction only.
 */
export function buildContextFromPath(path: readonly SessionEntry[], onWarning?: (message: string) => void): SessionContext {
  const context: SessionContext = { messages: [], entryIds: [] };
  let compactionIndex = -1;
  for (let index = path.length - 1; index >= 0; index--) {
    if (path[index]!.type === 'compaction') {
      compactionIndex = index;
      break;
    }
  }

  let start = 0;
  if (compactionIndex !== -1) {
    const compaction = path[compactionIndex] as CompactionEntry;
    context.messages.push(compactionSummaryMessage(compaction));
    context.entryIds.push(null);
    const keptIndex = path.findIndex((entry, index) => index < compactionIndex && entry.id === compaction.firstKeptEntryId);
    if (keptIndex === -1) {
      onWarning?.(`Compaction ${compaction.id}: first kept entry ${compaction.firstKeptEntryId} is not on the branch; keeping nothing before the compaction`);
    }
    start = keptIndex === -1 ? compactionIndex + 1 : keptIndex;
    for (let index = 0; index < start; index++) {
      const entry = path[index]!;
      if (entry.type === 'model_change') context.model = entry.model;
    }
  }

  for (let index = start; index < path.length; index++) {
    const entry = path[index]!;
    if (entry.type === 'message') {
      context.messages.push(entry.message);
      context.entryIds.push(entry.id);
    } else if (entry.type === 'model_change') {
      context.model = entry.model;
    }
  }
  return context;
}
