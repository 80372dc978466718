/**
 * Keeps a history sendable: every tool call gets a result and every result has its call.
 * Providers reject a request with a dangling tool call, so without this a session interrupted
 * mid-tool (abort, crash, a torn session file) could never be answered again.
 */
import type { Message, ToolCallPart, ToolResultMessage } from '../llm/types.ts';

/** Text of the synthetic result given to a tool call that has none. */
export const orphanResultText = 'Error: this tool call was interrupted before it returned a result.';

/**
 * Returns `messages` with a synthetic error result inserted after each assistant message whose
 * tool calls lack results, and with tool results that answer no preceding call removed. Returns
 * the same array when nothing needed repair.
 */
export function repairOrphans(messages: readonly Message[]): Message[] {
  if (!needsRepair(messages)) return messages as Message[];
  const repaired: Message[] = [];
  let open: ToolCallPart[] = [];
  const flushOpen = () => {
    for (const call of open) repaired.push(syntheticResult(call));
    open = [];
  };
  for (const message of messages) {
    if (message.role === 'tool') {
      const id = message.content[0].toolCallId;
      const index = open.findIndex((call) => call.id === id);
      if (index === -1) continue; // answers nothing: drop
      open.splice(index, 1);
      repaired.push(message);
      continue;
    }
    flushOpen();
    repaired.push(message);
    if (message.role === 'assistant') {
      for (const part of message.content) if (part.type === 'tool-call') open.push(part);
    }
  }
  flushOpen();
  return repaired;
}

function needsRepair(messages: readonly Message[]): boolean {
  const open = new Set<string>();
  for (const message of messages) {
    if (message.role === 'tool') {
      if (!open.delete(message.content[0].toolCallId)) return true;
      continue;
    }
    if (open.size > 0) return true;
    if (message.role === 'assistant') {
      for (const part of message.content) if (part.type === 'tool-call') open.add(part.id);
    }
  }
  return open.size > 0;
}

/** An error result for a call that has none. */
export function syntheticResult(call: ToolCallPart, text = orphanResultText): ToolResultMessage {
  return {
    role: 'tool',
    content: [{ type: 'tool-result', toolCallId: call.id, toolName: call.name, content: [{ type: 'text', text }], isError: true }],
  };
}
