/** How an Agent's parts are assembled: from its options and resources, and for a child. */
import type { Tool } from '../tools/tool.ts';
import type { AgentOptions } from './agent-options.ts';
import { ExtensionRunner } from './extensions.ts';
import type { Guardrail } from './guardrail.ts';
import { GuardrailSet } from './guardrail-set.ts';

/**
 * The extensions, guardrails and tools of `options` and its resources. Built-in tools win over
 * extension tools of the same name; file guardrails over extension ones.
 */
export function agentParts(options: AgentOptions): { extensions: ExtensionRunner; guardrails: GuardrailSet; tools: readonly Tool[] } {
  const resources = options.resources;
  const extensions = new ExtensionRunner([...(options.extensions ?? []), ...(resources?.extensions() ?? [])]);
  const guardrails = new GuardrailSet([...(options.guardrails ?? []), ...(resources?.guardrails() ?? [])], extensions.guardrails());
  const builtin = [...(options.tools ?? []), ...(resources?.tools() ?? [])];
  const names = new Set(builtin.map((tool) => tool.name));
  return { extensions, guardrails, tools: [...builtin, ...extensions.tools().filter((tool) => !names.has(tool.name))] };
}

/**
 * A child's options: the parent's model and prompt builder, the tools and working directory of
 * the parent's last turn (so its requests repeat the parent's bytes), the parent's guardrails; no
 * session store, extensions, resources, compaction or live state.
 */
export function childOptions(
  parent: AgentOptions,
  child: { sessionKey: string; tools: readonly Tool[]; cwd: string | undefined; guardrails: readonly Guardrail[]; maxToolRounds?: number; maxTokens?: number },
): AgentOptions {
  return {
    ...parent,
    sessions: undefined,
    sessionKey: child.sessionKey,
    tools: child.tools,
    cwd: child.cwd,
    extensions: [],
    guardrails: child.guardrails,
    resources: undefined,
    systemPrompt: parent.systemPrompt ?? parent.resources?.systemPrompt,
    compaction: { enabled: false },
    getEphemeralMessages: undefined,
    surfaces: undefined,
    subagents: undefined,
    maxToolRounds: child.maxToolRounds ?? parent.maxToolRounds,
    maxTokens: child.maxTokens ?? parent.maxTokens,
  };
}
