/** Helpers for guardrail tests: tool calls, folders of guardrail files in temp dirs. */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { AfterCallResult, BeforeCallDecision, Guardrail } from '../../src/agent/guardrail.ts';
import type { ToolCallPart, ToolResultContent } from '../../src/llm/types.ts';
import type { TurnContext } from '../../src/tools/tool.ts';

let nextId = 0;

/** A tool call as the engine hands it to guardrails. */
export function toolCall(name: string, args: Record<string, unknown> = {}): ToolCallPart {
  return { type: 'tool-call', id: `call-${++nextId}`, name, arguments: args };
}

/** Writes `files` (name -> text) into `folder`, creating it. */
export async function writeFiles(folder: string, files: Record<string, string>): Promise<string> {
  await mkdir(folder, { recursive: true });
  await Promise.all(Object.entries(files).map(([name, text]) => writeFile(path.join(folder, name), text)));
  return folder;
}

/** The before decision (in `turn`, when given), `allow` when the guardrail says nothing. */
export async function before(guardrail: Guardrail, call: ToolCallPart, turn?: TurnContext): Promise<BeforeCallDecision> {
  return (await guardrail.beforeCall?.(call, turn)) ?? { action: 'allow' };
}

/** The after result for a text result, `allow` when the guardrail says nothing. */
export async function after(guardrail: Guardrail, call: ToolCallPart, content: ToolResultContent[] = [{ type: 'text', text: 'ok' }]): Promise<AfterCallResult> {
  return (await guardrail.afterCall?.(call, { content, isError: false })) ?? { action: 'allow' };
}
