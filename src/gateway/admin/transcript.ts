/**
 * A conversation's transcript as the console shows it: the current session's active branch, read
 * from the store without opening the session for the gateway (nothing is created, cached or
 * written). Each tool call comes with its result, to be shown folded; reasoning is folded too; a
 * compaction shows as the summary that replaced what came before. Long texts are cut.
 */
import type { AssistantMessage, Message } from '../../llm/types.ts';
import { encodeSessionKey } from '../../session/session-manager.ts';
import { SessionTree } from '../../session/session-tree.ts';
import type { SessionEntry } from '../../session/types.ts';
import type { Store } from '../../store/store.ts';

/** A tool call and, once it came, its result. */
export interface TranscriptToolCall {
  name: string;
  /** The arguments as JSON (cut when long). */
  arguments: string;
  result?: { text: string; isError: boolean };
}

/** One step of the transcript. */
export type TranscriptItem =
  | { kind: 'user'; at: number; text: string }
  | { kind: 'assistant'; at: number; text: string; thinking?: string; toolCalls: TranscriptToolCall[]; model?: string; tokens?: number }
  | { kind: 'compaction'; at: number; text: string; tokensBefore: number }
  | { kind: 'model'; at: number; text: string };

/** What {@link readTranscript} answers. */
export interface Transcript {
  sessionId: string;
  /** Entries on the active branch before the ones shown (left out: the transcript shows the latest). */
  omitted: number;
  items: TranscriptItem[];
}

/** Longest text shown of one message, tool argument list or tool result. */
const maxText = 20_000;

/** The id of the current session of `sessionKey`, or undefined when it has none. */
export async function currentSessionId(store: Store, sessionKey: string): Promise<string | undefined> {
  const index = await store.get<{ current?: unknown }>(`session-index:${encodeSessionKey(sessionKey)}`);
  return typeof index?.current === 'string' ? index.current : undefined;
}

/**
 * The transcript of the current session of `sessionKey`: its last `limit` entries (default 400);
 * undefined when the conversation has no session.
 */
export async function readTranscript(store: Store, sessionKey: string, limit = 400): Promise<Transcript | undefined> {
  const sessionId = await currentSessionId(store, sessionKey);
  if (sessionId === undefined) return undefined;
  const tree = await SessionTree.load(store, sessionId, { onWarning: () => undefined });
  if (!tree) return { sessionId, omitted: 0, items: [] };
  const path = tree.pathTo(tree.leafId);
  const shown = path.slice(-limit);
  return { sessionId, omitted: path.length - shown.length, items: transcriptItems(shown) };
}

/** The entries as transcript items, tool results joined to their calls. */
export function transcriptItems(entries: readonly SessionEntry[]): TranscriptItem[] {
  const items: TranscriptItem[] = [];
  const calls = new Map<string, TranscriptToolCall>();
  for (const entry of entries) {
    if (entry.type === 'compaction') items.push({ kind: 'compaction', at: entry.timestamp, text: cut(entry.summary), tokensBefore: entry.tokensBefore });
    else if (entry.type === 'model_change') items.push({ kind: 'model', at: entry.timestamp, text: `model changed to ${entry.model}` });
    else if (entry.type === 'message') addMessage(items, calls, entry.message, entry.timestamp);
  }
  return items;
}

function addMessage(items: TranscriptItem[], calls: Map<string, TranscriptToolCall>, message: Message, at: number): void {
  if (message.role === 'user') {
    items.push({ kind: 'user', at, text: cut(message.content.map((part) => (part.type === 'text' ? part.text : `[${part.type} ${part.mediaType}]`)).join('\n')) });
    return;
  }
  if (message.role === 'tool') {
    const [result] = message.content;
    const call = calls.get(result.toolCallId);
    const text = cut(result.content.map((part) => (part.type === 'text' ? part.text : `[image ${part.mediaType}]`)).join('\n'));
    if (call) call.result = { text, isError: result.isError };
    // A result whose call is off the shown part of the transcript gets a call of its own.
    else items.push({ kind: 'assistant', at, text: '', toolCalls: [{ name: result.toolName, arguments: '', result: { text, isError: result.isError } }] });
    return;
  }
  items.push(assistantItem(message, at, calls));
}

function assistantItem(message: AssistantMessage, at: number, calls: Map<string, TranscriptToolCall>): TranscriptItem {
  const text: string[] = [];
  const thinking: string[] = [];
  const toolCalls: TranscriptToolCall[] = [];
  for (const part of message.content) {
    if (part.type === 'text') text.push(part.text);
    else if (part.type === 'thinking') thinking.push(part.redacted !== undefined ? '[reasoning the provider keeps hidden]' : part.text);
    else {
      const call: TranscriptToolCall = { name: part.name, arguments: cut(JSON.stringify(part.arguments, null, 2)) };
      calls.set(part.id, call);
      toolCalls.push(call);
    }
  }
  const usage = message.usage;
  return {
    kind: 'assistant',
    at,
    text: cut(text.join('')),
    ...(thinking.length > 0 && { thinking: cut(thinking.join('\n')) }),
    toolCalls,
    ...(message.model !== undefined && { model: message.model }),
    ...(usage !== undefined && { tokens: usage.input + usage.output + usage.cacheRead + usage.cacheWrite }),
  };
}

function cut(text: string): string {
  return text.length <= maxText ? text : `${text.slice(0, maxText)}\n[... ${(text.length - maxText).toLocaleString('en-US')} more characters not shown]`;
}
