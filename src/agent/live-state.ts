/**
 * The live state message: while a surface (the conversation's browser) is open, each model call
 * gets one more user message, for that call alone, showing its state. It is never written to the
 * session, so the next call shows the state as it is then and the history stays small.
 */
import type { Message, TextPart, ImagePart } from '../llm/types.ts';
import type { LiveSurface, TurnContext } from '../tools/tool.ts';

/**
 * The live state message of the surfaces `turn` is offered (a group member without the browser
 * does not see the browser an admin opened there), or none when none is open.
 */
export async function liveStateMessages(surfaces: readonly LiveSurface[], turn: TurnContext | undefined, signal: AbortSignal): Promise<Message[]> {
  const offered = surfaces.filter((surface) => !turn?.tools || turn.tools.has(surface.tool));
  if (offered.length === 0) return [];
  const states = await Promise.all(offered.map((surface) => surface.liveState(signal)));
  const content: (TextPart | ImagePart)[] = [];
  for (const state of states) {
    if (!state) continue;
    content.push({ type: 'text', text: state.text }, ...state.images);
  }
  if (content.length === 0) return [];
  return [{ role: 'user', content, timestamp: Date.now() }];
}

/** The agent's surfaces by tool name, as tools receive them. */
export function surfacesByTool(surfaces: readonly LiveSurface[] | undefined): Readonly<Record<string, LiveSurface>> | undefined {
  if (!surfaces || surfaces.length === 0) return undefined;
  return Object.fromEntries(surfaces.map((surface) => [surface.tool, surface]));
}
