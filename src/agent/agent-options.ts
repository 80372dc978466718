/** The shapes an Agent is made with and answers with. */
import type { ModelInfo } from '../llm/catalog.ts';
import type { Cost } from '../llm/cost.ts';
import type { ModelMiddleware } from '../llm/middleware.ts';
import type { AssistantMessage, ImagePart, Message, Provider, ReasoningEffort, RequestOptions, ToolCallPart, Usage } from '../llm/types.ts';
import type { SessionManager } from '../session/session-manager.ts';
import type { TaskSlot } from '../core/task-slot.ts';
import type { LiveSurface, Tool, TurnContext } from '../tools/tool.ts';
import type { ChangeLog } from '../tools/changes/change-log.ts';
import type { ChangeRecorder } from '../tools/changes/file-change.ts';
import type { SeatFilesSource } from '../tools/files/seat-files.ts';
import type { Subagents } from './subagents/subagents.ts';
import type { ReferenceAccess } from '../tools/agents/subagent-control.ts';
import type { CompactionSettings } from './compaction.ts';
import type { Extension } from './extensions.ts';
import type { Guardrail } from './guardrail.ts';
import type { RetrySettings } from './retry.ts';
import type { SpendGate } from './spend-gate.ts';
import type { SystemPromptBuilder } from './system-prompt.ts';
import type { TruncationConfig } from './truncation.ts';

/** How an Agent is made. */
export interface AgentOptions {
  provider: Provider;
  /** Provider-native model id. */
  model: string;
  modelInfo?: ModelInfo;
  /** Where sessions live; an in-memory manager when omitted (nothing persisted). */
  sessions?: SessionManager;
  /** The conversation this agent serves, e.g. `terminal:local`. */
  sessionKey: string;
  tools?: readonly Tool[];
  /**
   * Tools whose list changes while the agent lives (the MCP servers' of its profile), read at each
   * turn after the others; the same array while nothing changed (the offers and the prompt are
   * kept per list). A name the other tools have is not taken from here.
   */
  liveTools?: () => readonly Tool[];
  systemPrompt?: SystemPromptBuilder;
  extensions?: readonly Extension[];
  guardrails?: readonly Guardrail[];
  retry?: Partial<RetrySettings>;
  compaction?: Partial<CompactionSettings>;
  maxToolRounds?: number;
  /** The most output tokens of each model call; unset: the provider's default for the model. */
  maxTokens?: number;
  /**
   * The sampling temperature of each model call (0 and up); unset: the provider's default. Sent
   * where the provider takes one (see the provider's request builder).
   */
  temperature?: number;
  reasoningEffort?: ReasoningEffort;
  /** Sampling, stop sequences, metadata and provider options of every model call (see `ModelRequest`). */
  requestOptions?: RequestOptions;
  /**
   * Middleware of every model call of the agent's turns (see `src/llm/middleware.ts`), inside
   * its usage book: their `afterResponse` runs before the book counts the answer.
   */
  modelMiddleware?: readonly ModelMiddleware[];
  /**
   * The key under which each turn's person is sent to the provider as an opaque id (see
   * `person-id-middleware.ts`); unset: no id is sent.
   */
  personIdKey?: string;
  truncation?: TruncationConfig;
  cwd?: string;
  /**
   * A profile's resources: the system prompt, tools (skill, memory, ...), guardrails and
   * extensions they provide, re-read by `reload()`. Added to `tools`, `guardrails` and
   * `extensions` above; `systemPrompt` above wins over theirs.
   */
  resources?: AgentResources;
  /**
   * Checks every model call (the turns', and the reviewer's, the flush's and subagents', which
   * inherit it) against spending caps before it goes out (see `spend-gate.ts`); unset: none.
   */
  spend?: SpendGate;
  /** Messages appended to each model call only, after the live state of `surfaces`. */
  getEphemeralMessages?: () => Promise<Message[]> | Message[];
  /**
   * The conversation's live surfaces (its browser): handed to tools, and their state rides along
   * with each model call of turns offered their tool (see `live-state.ts`). Children get none.
   */
  surfaces?: readonly LiveSurface[];
  /**
   * The conversation's file changes, kept for `/undo` and `/diff`: the file tools record what
   * they change here.
   */
  changes?: ChangeLog;
  /** Records file changes here instead of in `changes` (a subagent records into its parent's turn). */
  changeRecorder?: ChangeRecorder;
  /**
   * Where tools that are not operator's own reach the seat's files (`ToolContext.files`, through
   * the runtime's file workers); unset: tools get no `files`.
   */
  files?: SeatFilesSource;
  /**
   * The agent's children (`spawn_agent` and the other subagent tools act on them); unset where it
   * may start none (a child at the depth limit).
   */
  subagents?: Subagents;
  /** The reference pool a child shares with its siblings and parent; unset: its own children's, if any. */
  references?: ReferenceAccess;
  /**
   * Asks the conversation to approve a tool call a guardrail flagged with `ask` (buttons where
   * the platform has them, a typed answer otherwise). Resolves true to allow. Without it, such
   * calls are denied.
   */
  requestApproval?: (request: ApprovalRequest) => Promise<boolean> | boolean;
  /** How long to wait for an approval before denying. Default 5 minutes. */
  approvalTimeoutMs?: number;
  /** Waits between retries; injectable so tests need not sleep. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** Options of one turn. */
export interface InvokeOptions {
  /** The conversation channel; keys the system prompt cache. */
  channel?: string;
  images?: ImagePart[];
  /** Who and where the turn is for, handed to tools (follow-ups run under it too). */
  turn?: TurnContext;
  /**
   * The deadline of the whole call in milliseconds (none when unset): the turn with its retries,
   * tools and approvals, and any follow-ups run after it. When it passes, the turn stops and
   * `invoke` throws a `TurnTimeoutError`, the session left as before the turn; a retry that could
   * only begin past it is not waited for. (Passing during a follow-up, it ends that follow-up
   * alone, as any failure of a follow-up does.)
   */
  timeoutMs?: number;
  /**
   * The slot of the queued task running the call (see `core/task-slot.ts`): its model calls,
   * its subagents' and its compaction's step out of it while they wait on the provider.
   */
  slot?: TaskSlot;
}

/** The outcome of one turn. */
export interface TurnResult {
  /** Final answer text (empty when aborted before any text). */
  text: string;
  /** The last assistant message of the turn. */
  message: AssistantMessage | undefined;
  /** Every message the turn added to the session. */
  messages: Message[];
  usage: Usage;
  cost: Cost;
  aborted: boolean;
  /** Turns run afterwards for queued follow-ups. */
  followUps: TurnResult[];
}

/** Idle, running a turn, or compacting. Structural operations need `idle`. */
export type AgentPhase = 'idle' | 'turn' | 'compaction';

/** A tool call waiting for a person's approval. */
export interface ApprovalRequest {
  call: ToolCallPart;
  /** Why the guardrail asks. */
  reason: string;
  /** Aborted when the answer is no longer wanted (timeout, turn aborted). */
  signal: AbortSignal;
}

/** What a profile's resources give an Agent (see `src/runtime/profile-resources.ts`). */
export interface AgentResources {
  systemPrompt: SystemPromptBuilder;
  tools(): readonly Tool[];
  guardrails(): readonly Guardrail[];
  extensions(): readonly Extension[];
  /** Re-reads everything; resolves to a report of what changed and what failed. */
  reload(): Promise<unknown>;
  /** What the last prompt build had to cut. */
  readonly truncations?: readonly string[];
  /**
   * What is kept about the person whose turn `turn` is, where that is not in the system prompt (a
   * seat other than the owner's): it rides along with each model call of the turn, never written
   * to the session, so another person's turn never shows it (see `speaker-notes.ts`).
   */
  speakerNotes?(turn: TurnContext): Promise<string | undefined>;
}
