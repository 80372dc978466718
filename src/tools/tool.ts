/**
 * The tool contract. A tool declares its arguments with a zod schema (validated before it runs;
 * JSON Schema for the model is generated from it) and returns text or images.
 */
import * as z from 'zod';
import type { TurnTaint } from './turn-taint.ts';
import type { TaskSlot } from '../core/task-slot.ts';
import type { ImagePart, ToolDefinition, ToolResultContent } from '../llm/types.ts';
import type { ChangeRecorder } from './changes/file-change.ts';
import type { ReferenceAccess, SubagentControl } from './agents/subagent-control.ts';
import type { TurnSeat } from './turn-seat.ts';
import type { SeatFiles } from './files/seat-files.ts';

/**
 * Who and where a turn is for, when it comes from a chat conversation (the gateway sets it;
 * the terminal chat does not). Tools that act on the conversation (send a file, schedule a
 * follow-up) read it; it never reaches the model.
 */
export interface TurnContext {
  /** The conversation's session key, e.g. `telegram:dm:42`. */
  sessionKey: string;
  /** `telegram`, `discord`, `slack`, `web`. */
  platform: string;
  /** The person whose message started the turn (for a scheduled job: the job's creator). */
  senderId: string;
  senderName?: string;
  /** That person is an admin of the gateway. */
  admin: boolean;
  /**
   * The turn is in one of the owner's seats (the gateway decides: an admin's own direct messages,
   * the local web chat). Only there are the profile's shared memory and skills written; unset in
   * a turn context means another seat. No turn context at all (the terminal chat) is the owner's.
   */
  owner?: boolean;
  /** The turn was started by a scheduled job, not by a person's message. */
  scheduled: boolean;
  /**
   * The tools the model is offered in this turn, by name (the gateway's grants decide); unset
   * offers every tool. A call to any other tool is refused.
   */
  tools?: ReadonlySet<string>;
  /** Where this turn's tools work; unset means the agent's own working directory and roots. */
  workspace?: Workspace;
  /**
   * Makes the workspace's own folder when it is not there yet; the engine calls it before each tool
   * call of the turn. A conversation's folder is made by its first tool call, not by its first
   * message: most turns run no tool, and a `mkdir` was a good part of a new conversation's cost.
   */
  prepareWorkspace?: () => void;
  /**
   * The seat `tools` and `workspace` come from (see `turn-seat.ts`): what a job, pipeline run or
   * subagent made in this turn keeps, so it never gets more. Unset where no gateway decides (the
   * terminal).
   */
  seat?: TurnSeat;
  /**
   * Queues a file to go out with this turn's reply (through the delivery ledger, as `send_file`
   * does); resolves to what the model is told, rejects with why it cannot be sent. Unset where
   * there is no chat to send to.
   */
  attachFile?(path: string, name?: string): Promise<string>;
  /**
   * What untrusted content the turn's context holds (see `turn-taint.ts`): a call that acts
   * then needs a person's yes. Unset where nothing is tracked (the terminal chat).
   */
  taint?: TurnTaint;
  /**
   * The conversation's own folder, where the documents people send are saved, when it holds what
   * other people sent (a group where others talked): reading there brings `source` in (see
   * `turn-taint.ts`, {@link sharedFileSource}).
   */
  sharedFiles?: { folder: string; source: string };
  /** The profile the conversation uses (its spending caps may be the profile's own). */
  profile?: string;
  /** The turn, as its platform names the message that started it (memory records it as the source). */
  turnId?: string;
  /**
   * Who works in this turn's name when it is not the turn itself: the background reviewer or the
   * memory flush, whose children work under the reviewed conversation's last turn.
   */
  origin?: 'reviewer' | 'flush';
  /** The scheduled job this turn runs, and which of its runs (its due time): its spending caps count it. */
  job?: { id: string; run: string };
  /** The pipeline run whose node this is: its spending cap counts it. */
  pipelineRun?: string;
}

/**
 * Where a turn's tools may work: relative paths and the shell start in `cwd`; file tools stay
 * inside `roots` (and never reach `hidden`), and the command sandbox binds `roots` writable.
 */
export interface Workspace {
  cwd: string;
  /** Folders the file tools may read and change; the sandbox binds them read-write. */
  roots: readonly string[];
  /**
   * Folders no file tool may reach in this turn except through a root inside them (e.g.
   * `OPERATOR_HOME` when the working directory contains it: other conversations' folders).
   */
  hidden?: readonly string[];
}

/**
 * What a tool does to the machine: `read` (reads files), `write` (changes files), `shell` (runs
 * commands), `browser`, `desktop`, `agents` (starts subagents, which get at most the turn's own
 * tools), `mcp` (a tool of a configured MCP server). Grants are given per group; a tool without
 * one is the conversation's own (memory, skills, knowledge search, schedule) and always offered.
 */
export type MachineAccess = 'read' | 'write' | 'shell' | 'browser' | 'desktop' | 'agents' | 'mcp';

/**
 * Something live a conversation's agent drives through one tool (its browser, a desktop), whose
 * state rides along with each model call while it is open. Each conversation's agent has its
 * own; child agents get none (they must not steer the parent's).
 */
export interface LiveSurface {
  /** The tool that drives it: its state goes only to turns that are offered that tool. */
  readonly tool: string;
  /** Whether it is open now. */
  readonly isOpen: boolean;
  /**
   * Its state for one model call, or undefined when it is not open. Must not throw: a failure
   * to capture is said in the text.
   */
  liveState(signal: AbortSignal): Promise<LiveState | undefined>;
  /** Closes it (`/new`, `/stop`); the next use opens it again. */
  close(): Promise<void>;
}

/** What a {@link LiveSurface} shows the model for one call. */
export interface LiveState {
  text: string;
  images: ImagePart[];
}

/** What a running tool may use. */
export interface ToolContext {
  /** Aborted when the turn is aborted or the tool times out. */
  signal: AbortSignal;
  /** Working directory for relative paths and the shell. */
  cwd: string;
  toolCallId: string;
  /** Streams partial output (shown to people, not to the model). */
  onOutput?: (text: string) => void;
  /** The conversation's turn, when the agent serves a chat (see {@link TurnContext}). */
  turn?: TurnContext;
  /** The agent's live surfaces by tool name (`browser`); none in a child agent. */
  surfaces?: Readonly<Record<string, LiveSurface>>;
  /** Where a tool that changes files records each change, for `/undo` and `/diff`; unset: nothing is recorded. */
  changes?: ChangeRecorder;
  /** The agent's children, for the subagent tools; unset where it may not start any. */
  subagents?: SubagentControl;
  /**
   * The reference pool the agent shares with its siblings and parent (a child's), or with its
   * children (a parent's), for `add_references` and `search_references`; unset where it has none.
   */
  references?: ReferenceAccess;
  /**
   * The slot of the queued task running the turn (see `core/task-slot.ts`); a tool that makes
   * model calls of its own (the subagents') hands it on, so they step out of it while they wait.
   */
  slot?: TaskSlot;
  /**
   * The seat's files, through the turn's file worker in its sandbox (see `files/seat-files.ts`):
   * how a tool that is not operator's own (an extension's) reads and writes files confined to what
   * the seat may see. Set for tools that say they read, write or run commands; writes only where
   * the tool says it changes files and the turn may.
   */
  files?: SeatFiles;
}

/** What a tool returns. A string is shorthand for one text part. */
export interface ToolOutput {
  content: string | ToolResultContent[];
  isError?: boolean;
}

/** A tool the agent can call. */
export interface Tool<Schema extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  parameters: Schema;
  /**
   * The arguments' JSON Schema as the model sees it, when it comes from elsewhere (an MCP server's
   * `inputSchema`) rather than from `parameters`, which then only checks that the arguments are an
   * object: the server checks them itself.
   */
  inputSchema?: Record<string, unknown>;
  /** Milliseconds before the call is aborted with a timeout error; unset means no limit. */
  timeoutMs?: number;
  /**
   * What the tool does to the machine, for grants. Built-in tools say; a tool from an extension
   * that says nothing counts as `shell` (it may do anything), so it is offered only where
   * commands are.
   */
  machine?: MachineAccess | 'none';
  /**
   * The tool's work is done by a program operator started in the command sandbox (an MCP server
   * run by a command): where no sandbox runs, such a tool is the owner's alone, like `shell`.
   */
  runsInSandbox?: boolean;
  /**
   * Whether a call acts on the world (changes files, runs something, submits in a page, schedules,
   * sends a file): in a turn whose context holds untrusted content it needs a person's yes. Unset:
   * by `machine` (`write`, `shell`, `desktop` and an unsaid one act).
   */
  acts?: boolean | ((args: Record<string, unknown>) => boolean);
  /**
   * What untrusted content a call's result brings into the context (`a web page (https://…)`),
   * or undefined when none: the turn is tainted from then on (see `turn-taint.ts`).
   */
  untrustedSource?(args: Record<string, unknown>, turn?: TurnContext): string | undefined;
  execute(args: z.infer<Schema>, context: ToolContext): Promise<ToolOutput | string>;
  /**
   * What a call will act on, found before it runs (the name and role of the button a browser
   * click would press): guardrail rules and approval questions see these as extra arguments, so
   * a rule can ask before a click on "Pay" whatever ref the model used. Must not act.
   */
  inspect?(args: z.infer<Schema>, context: ToolContext): Promise<Record<string, string> | undefined>;
}

/** Declares a tool with its argument types inferred from the schema. */
export function defineTool<Schema extends z.ZodType>(tool: Tool<Schema>): Tool<Schema> {
  return tool;
}

const definitions = new WeakMap<Tool, ToolDefinition>();

/**
 * The model-facing definition of a tool, with JSON Schema generated from its zod schema. Cached
 * per tool object: generating the schema is far slower than a turn's own work, and the bytes must
 * not change from call to call (prompt cache).
 */
export function toToolDefinition(tool: Tool): ToolDefinition {
  let definition = definitions.get(tool);
  if (!definition) {
    const schema = tool.inputSchema ? { ...tool.inputSchema } : (z.toJSONSchema(tool.parameters, { target: 'draft-7', io: 'input' }) as Record<string, unknown>);
    delete schema.$schema;
    definition = { name: tool.name, description: tool.description, parameters: schema };
    definitions.set(tool, definition);
  }
  return definition;
}
