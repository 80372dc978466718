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
  // The resources' first: the built-in counters see every call, and a rule file's block wins over
  // an ask of the options' (an MCP server's approval), which would otherwise end the checks.
  const guardrails = new GuardrailSet([...(resources?.guardrails() ?? []), ...(options.guardrails ?? [])], extensions.guardrails());
  const builtin = [...(options.tools ?? []), ...(resources?.tools() ?? [])];
  const names = new Set(builtin.map((tool) => tool.name));
  return { extensions, guardrails, tools: [...builtin, ...extensions.tools().filter((tool) => !names.has(tool.name))] };
}

/** Lists of `base` followed by a live list, kept per pair so a turn's offer stays the same array while neither changed. */
const combined = new WeakMap<readonly Tool[], WeakMap<readonly Tool[], readonly Tool[]>>();

/**
 * `base` followed by the tools of `live` whose names `base` does not have (see
 * `AgentOptions.liveTools`); `base` itself when there are none.
 */
export function withLiveTools(base: readonly Tool[], live: readonly Tool[] | undefined): readonly Tool[] {
  if (!live || live.length === 0) return base;
  let byLive = combined.get(base);
  if (!byLive) combined.set(base, (byLive = new WeakMap()));
  let tools = byLive.get(live);
  if (!tools) {
    const names = new Set(base.map((tool) => tool.name));
    tools = [...base, ...live.filter((tool) => !names.has(tool.name))];
    byLive.set(live, tools);
  }
  return tools;
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
    // The parent's last offer holds them already, as they were then.
    liveTools: undefined,
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
