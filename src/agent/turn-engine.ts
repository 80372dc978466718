/**
 * The engine of one turn attempt, wired to its agent: the model and limits of the agent's
 * options, the tools the turn offers in its workspace, steering between tool rounds, the tool-call
 * hooks, every final message written to the session as it comes, and the model calls through the
 * agent's middleware: its usage book, then the options' own.
 */
import type { Cost } from '../llm/cost.ts';
import { withMiddleware } from '../llm/middleware.ts';
import type { Usage, UserMessage } from '../llm/types.ts';
import type { SessionTree } from '../session/session-tree.ts';
import type { Tool, ToolContext } from '../tools/tool.ts';
import type { AgentOptions } from './agent-options.ts';
import { Engine } from './engine.ts';
import { liveStateMessages, surfacesByTool } from './live-state.ts';
import { speakerNotesMessages } from './speaker-notes.ts';
import { toolCallHooks, type ToolCallParts } from './tool-call-hooks.ts';
import { personIdMiddleware } from './person-id-middleware.ts';
import { usageMiddleware } from './usage-middleware.ts';

/** What a turn's engine is made of besides the agent's options. */
export interface TurnEngineParts extends ToolCallParts {
  tree: SessionTree;
  tools: readonly Tool[];
  /** Only these may run (a child's whitelist). */
  allowedTools: ReadonlySet<string> | undefined;
  /** Drains the steering messages queued since the last call. */
  takeSteering(): string[];
  /** Counts a model call's usage; returns its cost. */
  record(usage: Usage): Cost;
  /** The queued task's slot (see `ToolContext.slot`). */
  slot: ToolContext['slot'];
}

/** A fresh engine for one attempt of a turn. */
export function createTurnEngine(options: AgentOptions, parts: TurnEngineParts): Engine {
  const { tree, turn } = parts;
  return new Engine({
    // The usage book first: its afterResponse runs last, on the answer as the engine gets it.
    provider: withMiddleware(options.provider, [
      usageMiddleware({ record: parts.record, report: (usage, cost) => parts.emit({ type: 'model_usage', model: options.model, usage, cost }) }),
      ...(options.personIdKey !== undefined && turn ? [personIdMiddleware(options.personIdKey, turn)] : []),
      ...(options.modelMiddleware ?? []),
    ]),
    model: options.model,
    tools: parts.tools,
    allowedTools: parts.allowedTools,
    maxToolRounds: options.maxToolRounds,
    maxTokens: options.maxTokens,
    reasoningEffort: options.reasoningEffort,
    // A temperature given to the agent itself (a pipeline step's) wins over the profile's.
    requestOptions: options.temperature === undefined ? options.requestOptions : { ...options.requestOptions, temperature: options.temperature },
    truncation: options.truncation,
    contextWindow: options.modelInfo?.contextWindow,
    cwd: turn?.workspace?.cwd ?? options.cwd,
    turn,
    surfaces: surfacesByTool(options.surfaces),
    // The engine is made right after the turn's message is written (and again from it on a
    // retry): the session's leaf names the turn.
    changes: options.changeRecorder ?? options.changes?.forTurn(tree.leafId ?? 'turn'),
    subagents: options.subagents,
    // A child's is its parent's pool; a parent's, the one it shares with its children.
    references: options.references ?? options.subagents?.referencesFor('parent'),
    slot: parts.slot,
    spend: options.spend,
    files: options.files,
    getEphemeralMessages: async (signal) => [
      ...(await speakerNotesMessages(options.resources, turn)),
      ...(await liveStateMessages(options.surfaces ?? [], turn, signal)),
      ...((await options.getEphemeralMessages?.()) ?? []),
    ],
    takeSteeringMessages: () => parts.takeSteering().map((text): UserMessage => ({ role: 'user', content: [{ type: 'text', text }], timestamp: Date.now() })),
    ...toolCallHooks({ ...parts, toolNamed: (name) => parts.tools.find((tool) => tool.name === name) }),
    onEvent: async (event) => {
      if (event.type === 'message_end') await tree.appendMessage(event.message);
      await parts.emit(event);
    },
  });
}
