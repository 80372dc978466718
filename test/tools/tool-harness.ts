/** Helpers for tool tests: temp directories on the real filesystem and a call that validates args. */
import { readFile } from 'node:fs/promises';
import type { Tool, ToolContext, ToolOutput } from '../../src/tools/tool.ts';

export { makeTempDir } from '../helpers/temp-dir.ts';

/** Calls a tool as the engine would: arguments parsed by its schema, output normalized. */
export async function callTool(
  tool: Tool,
  args: Record<string, unknown>,
  context: Partial<ToolContext> & { cwd: string },
): Promise<ToolOutput> {
  const parsed = tool.parameters.parse(args);
  const output = await tool.execute(parsed, { signal: new AbortController().signal, toolCallId: 'call-1', ...context });
  return typeof output === 'string' ? { content: output } : output;
}

/** The text of a tool output, failing on image parts. */
export function textOf(output: ToolOutput): string {
  if (typeof output.content === 'string') return output.content;
  return output.content.map((part) => (part.type === 'text' ? part.text : '<image>')).join('');
}

/**
 * Whether process `pid` is gone within `timeoutMs`, looking every 20 ms. A killed process closes
 * its files (the command's output pipes, whose closing answers the call) a moment before the
 * kernel marks it dead, so a test asks whether it ends, not whether it ended at that instant.
 */
export async function goneWithin(pid: number, timeoutMs = 5_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (await isRunning(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

/** Whether a process is running (a zombie, dead but not yet reaped, counts as gone). */
export async function isRunning(pid: number): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}
