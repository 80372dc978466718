/**
 * The parts of a conversation's system prompt and their sizes, built the way its turns build it
 * (the profile's resources assemble it: see `resources/prompt-assembly.ts`), so an admin sees what
 * takes the room: the identity, rules and knowledge, memory, skills, the platform hint. Only the
 * sizes leave the gateway, never the prompt's text.
 */
import { today } from '../../agent/system-prompt.ts';
import type { AdminGateway } from './admin-routes.ts';

/** One part of the prompt. */
export interface PromptPart {
  label: string;
  characters: number;
  /** A rough count (four characters a token), for scale. */
  approxTokens: number;
}

/** What {@link describePrompt} answers. */
export interface PromptDescription {
  profile: string;
  parts: PromptPart[];
  characters: number;
  /** What the build had to cut, in words. */
  truncations: string[];
  /** The tools the prompt was built for: a live conversation's, else the profile's own (what decides whether the skills part is in). */
  builtFor: 'live conversation' | 'profile tools';
}

/** The prompt of the conversation `sessionKey` with `profile`, in session `sessionId`. */
export async function describePrompt(gateway: AdminGateway, sessionKey: string, profile: string, sessionId: string): Promise<PromptDescription> {
  const { resources } = await gateway.runtime.resources(profile);
  const live = await gateway.conversations.peek(sessionKey)?.catch(() => undefined);
  const toolNames = live?.profile === profile ? live.agent.tools.map((tool) => tool.name) : resources.tools().map((tool) => tool.name);
  const assembled = await resources.assemblePrompt({ channel: sessionKey, sessionId, cwd: gateway.runtime.cwd, date: today(), toolNames });
  const parts = assembled.parts.map((part) => ({ ...part, approxTokens: Math.ceil(part.characters / 4) }));
  return {
    profile,
    parts,
    characters: assembled.prompt.length,
    truncations: assembled.truncations,
    builtFor: live?.profile === profile ? 'live conversation' : 'profile tools',
  };
}
