/**
 * How a subagent is made from its parent: the parent's model (or one the caller chose), prompt
 * builder, guardrails and session store, and the parent's tools minus those it may not hand
 * down. A child has no live surfaces (never the parent's browser or desktop), no extensions, and
 * records its file changes into the parent's turn (so `/undo turn` takes back its work too).
 */
import { createDoomLoopGuard } from '../../guardrails/doom-loop-guard.ts';
import type { ModelClient } from '../../llm/model-client.ts';
import type { Store } from '../../store/store.ts';
import { subagentToolNames } from '../../tools/agents/subagent-tools.ts';
import type { Tool } from '../../tools/tool.ts';
import { Agent } from '../agent.ts';
import { agentParts } from '../agent-parts.ts';
import type { ChildFactory } from './subagents.ts';
import { Subagents } from './subagents.ts';
import type { SubagentSettings } from './subagent-settings.ts';

/**
 * Tools that act on the conversation or the profile's lasting state, kept by the parent: sending
 * files and scheduling are the conversation's, memory and skills the profile's.
 */
export const keptByParent: readonly string[] = ['send_file', 'schedule', 'memory', 'skill_manage'];

/** What the factory needs besides the parent. */
export interface ChildAgentDeps {
  /** A model client for a model id or alias; throws a clear error for an unknown one. */
  clientFor(model: string): ModelClient;
  store: Store;
  settings: SubagentSettings;
  /** A session key as one store key segment. */
  segment(sessionKey: string): string;
}

/** The factory of children for `Subagents` (and, below the depth limit, of theirs). */
export function childAgentFactory(deps: ChildAgentDeps): ChildFactory {
  const factory: ChildFactory = (parent, spec) => {
    const client = spec.model ? deps.clientFor(spec.model) : undefined;
    const options = parent.options;
    const nested =
      spec.depth < deps.settings.maxDepth
        ? new Subagents({ store: deps.store, parentKey: spec.sessionKey, parentSegment: deps.segment(spec.sessionKey), settings: deps.settings, depth: spec.depth, createChild: factory })
        : undefined;
    // The parent's guardrails, with a loop guard of its own: the shared one counts per turn, and
    // a child's turn starting must not reset its parent's counts.
    const guardrails = agentParts(options).guardrails.guardrails.filter((guardrail) => guardrail.name !== 'doom-loop');
    const child = new Agent({
      provider: client?.provider ?? options.provider,
      model: client?.model ?? options.model,
      modelInfo: client ? client.info : options.modelInfo,
      sessions: parent.sessions,
      sessionKey: spec.sessionKey,
      tools: handedDown(parent, spec.depth < deps.settings.maxDepth),
      systemPrompt: options.systemPrompt ?? options.resources?.systemPrompt,
      guardrails: [...guardrails, createDoomLoopGuard(), spec.guardrail],
      retry: options.retry,
      maxToolRounds: spec.maxTurns,
      maxTokens: options.maxTokens,
      reasoningEffort: options.reasoningEffort,
      // The profile's request settings and the parent's middleware (its usage book is the child's own).
      requestOptions: options.requestOptions,
      modelMiddleware: options.modelMiddleware,
      personIdKey: options.personIdKey,
      truncation: options.truncation,
      cwd: spec.cwd ?? options.cwd,
      getEphemeralMessages: spec.ephemeral,
      changeRecorder: spec.changes,
      files: options.files,
      requestApproval: spec.requestApproval,
      approvalTimeoutMs: options.approvalTimeoutMs,
      sleep: options.sleep,
      subagents: nested,
      references: spec.references,
    });
    nested?.attach(child);
    return child;
  };
  return factory;
}

/** Handed-down lists per parent tool list, so children of one parent share one list. */
const handedDownLists = new WeakMap<readonly Tool[], Map<boolean, readonly Tool[]>>();

/** The parent's tools a child gets: not its surfaces' tools, not those {@link keptByParent}, no subagent tools at the depth limit. */
function handedDown(parent: Agent, mayNest: boolean): readonly Tool[] {
  const tools = parent.tools;
  let lists = handedDownLists.get(tools);
  if (!lists) handedDownLists.set(tools, (lists = new Map()));
  let list = lists.get(mayNest);
  if (!list) {
    const withheld = new Set([...keptByParent, 'browser', 'desktop', ...(parent.options.surfaces ?? []).map((surface) => surface.tool), ...(mayNest ? [] : subagentToolNames)]);
    list = tools.filter((tool) => !withheld.has(tool.name));
    lists.set(mayNest, list);
  }
  return list;
}
