/**
 * One agent's children: subagents started by `spawn_agent`, each a real Agent with its own
 * session, working in the background of the parent's turn. It enforces the limits (depth,
 * children working at once, tokens and model calls per child), charges each child's spend to the
 * parent, shares failures and loop warnings between the children, serializes their approval
 * questions, reports progress, and stops them when the parent's answer ends, on `/stop`, or when
 * closed. Kept in the store (see `subagent-record.ts`).
 */
import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { errorMessage } from '../../core/errors.ts';
import { within } from '../../core/within.ts';
import { emptyUsage, type Message } from '../../llm/types.ts';
import type { Store } from '../../store/store.ts';
import { SubagentError, type ReferenceAccess, type SpawnRequest, type SubagentControl, type WaitOutcome } from '../../tools/agents/subagent-control.ts';
import type { ChangeRecorder } from '../../tools/changes/file-change.ts';
import type { ToolContext } from '../../tools/tool.ts';
import type { Agent } from '../agent.ts';
import type { ApprovalRequest } from '../agent-options.ts';
import type { Guardrail } from '../guardrail.ts';
import { SubagentRecords, type SubagentRecord, type SubagentStatus } from './subagent-record.ts';
import type { SubagentSettings } from './subagent-settings.ts';
import type { WorkerState } from './worker-state.ts';
import { SharedWork } from './shared-work.ts';
import { childTurn, failureWords, inside, seatRefusal, taskInput } from './child-work.ts';
import { shorten } from '../../core/shorten.ts';

/** What the factory is asked to make a child with. */
export interface ChildSpec {
  id: string;
  sessionKey: string;
  /** The child's level: 1 for a child of a conversation's agent. */
  depth: number;
  cwd: string | undefined;
  /** A model id or alias instead of the parent's. */
  model?: string;
  /** Model calls per task or message. */
  maxTurns: number;
  /** Shares the child's failures and calls with its siblings (see `WorkerState`). */
  guardrail: Guardrail;
  /** Messages for each of the child's model calls alone: its siblings' failures. */
  ephemeral(): Message[];
  /** Where its tools record file changes: into the parent's turn that gave it its work. */
  changes: ChangeRecorder;
  /** Asks the parent's conversation, one question at a time. */
  requestApproval?(request: ApprovalRequest): Promise<boolean>;
  /** The reference pool it shares with its siblings and the parent, saving in its name. */
  references: ReferenceAccess;
}

/** Makes a child agent of `parent` (see `child-agent.ts`). Throws a clear error for a bad model. */
export type ChildFactory = (parent: Agent, spec: ChildSpec) => Agent;

/** Options of {@link Subagents}. */
export interface SubagentsOptions {
  store: Store;
  /** The parent's session key as one store key segment. */
  parentSegment: string;
  /** The parent's session key. */
  parentKey: string;
  settings: SubagentSettings;
  /** The parent's level: 0 for a conversation's agent. */
  depth: number;
  createChild: ChildFactory;
}

/** One line of progress: a child of the parent's current turn. */
export interface SubagentLine {
  id: string;
  task: string;
  status: SubagentStatus;
  toolCalls: number;
  /** The tool it runs now, while running. */
  tool?: string;
}

/** A child as this process holds it. */
interface Child {
  record: SubagentRecord;
  /** How it is made: kept, so a finished child holds no agent and is made again for a new message. */
  spec: ChildSpec;
  /** Only while it works: a finished child is a record and its stored session. */
  agent?: Agent;
  /** Messages sent while it works, taken in once its current work is done. */
  inbox: string[];
  run?: Promise<void>;
  /** The answer of its latest work, or what it said before it failed. */
  text: string;
  tool?: string;
  /** Set when the parent stopped it (why), or it ran over its token budget. */
  stopped?: string;
  overBudget?: boolean;
  unsubscribe?: () => void;
  /** The recorder of the parent's turn that gave it its current work. */
  recorder?: ChangeRecorder;
}

/** How long a stopped child's work may take to end before `stopAll` and `close` go on. */
const stopGraceMs = 5_000;

/** One agent's children. */
export class Subagents implements SubagentControl {
  readonly settings: SubagentSettings;
  readonly depth: number;
  readonly #options: SubagentsOptions;
  // What follows is made on first use: every conversation's agent has a `Subagents`, and one
  // that never starts a child should cost next to nothing while it idles.
  #sharedWork: SharedWork | undefined;
  #recordsMade: SubagentRecords | undefined;
  #childrenMade: Map<string, Child> | undefined;
  #parent: Agent | undefined;
  /** Children started or given work in the parent's current turn: the progress lines. */
  #thisTurn: Set<string> | undefined;
  #clearLines = false;
  #listeners: Set<(lines: SubagentLine[]) => void> | undefined;
  #approvals: Promise<unknown> = Promise.resolve();
  /** The stopping of the children the parent's last answer left working. */
  #ending: Promise<void> = Promise.resolve();
  #loaded: Promise<void> | undefined;

  constructor(options: SubagentsOptions) {
    this.#options = options;
    this.settings = options.settings;
    this.depth = options.depth;
  }

  /** Failures and calls shared between the children of the current turn. */
  get shared(): WorkerState {
    return this.#shared.workers;
  }

  /** What the children share (see `shared-work.ts`). */
  get #shared(): SharedWork {
    return (this.#sharedWork ??= new SharedWork(this.#options.store, this.#options.parentSegment, () => this.#load()));
  }

  get #records(): SubagentRecords {
    return (this.#recordsMade ??= new SubagentRecords(this.#options.store, this.#options.parentSegment));
  }

  get #children(): Map<string, Child> {
    return (this.#childrenMade ??= new Map());
  }

  /** Binds the parent; its children are stopped when one of its answers ends. */
  attach(parent: Agent): void {
    this.#parent = parent;
    parent.subscribe((event) => {
      // Nothing to do (nor to allocate) for a parent that never had a child in this process.
      if ((event.type === 'settled' || event.type === 'turn_error') && this.#childrenMade) this.#ending = this.#turnEnded();
    });
  }

  // --- the tools' side ------------------------------------------------------------------------

  async spawn(request: SpawnRequest, context: ToolContext): Promise<string> {
    const parent = this.#requireParent();
    await this.#load();
    if (this.depth >= this.settings.maxDepth) throw new SubagentError(`Subagents may not start subagents here (depth limit ${this.settings.maxDepth}).`);
    if (request.model !== undefined && context.turn && !context.turn.admin) throw new SubagentError("Only an admin's turn may choose a subagent's model; leave model out.");
    const cwd = await this.#workingDirectory(request.workingDir, context);
    await this.#makeRoom();
    // Checked after the last wait: calls of one batch run side by side, and each must count the others.
    const running = this.#running();
    if (running.length >= this.settings.maxRunning) {
      throw new SubagentError(`${running.length} subagents are already working (${running.map((child) => child.record.id).join(', ')}), the most at once; wait for one or close one first.`);
    }
    const id = this.#newId();
    const sessionKey = `${this.#options.parentKey}:agent:${id}`;
    const maxTurns = Math.min(request.maxTurns ?? this.settings.maxTurns, this.settings.maxTurns);
    const spec = this.#spec(id, sessionKey, cwd, request.model, maxTurns);
    let agent: Agent;
    try {
      agent = this.#options.createChild(parent, spec);
    } catch (error) {
      throw new SubagentError(`Could not start a subagent: ${errorMessage(error)}`);
    }
    const record: SubagentRecord = { id, task: shorten(request.task.trim().split('\n')[0] ?? '', 200), sessionKey, model: agent.model, status: 'running', closed: false, startedAt: Date.now(), toolCalls: 0, usage: emptyUsage(), cost: 0 };
    // Kept: a later turn gives it work only from a seat within this one (see `seatRefusal`).
    if (context.turn?.seat) record.seat = context.turn.seat;
    this.#records.add(record);
    const child: Child = { record, spec, agent, inbox: [], text: '' };
    this.#children.set(id, child);
    this.#watch(child);
    this.#start(child, taskInput(id, request.task), context);
    return id;
  }

  async sendInput(id: string, message: string, context: ToolContext): Promise<string> {
    const child = await this.#find(id);
    const refusal = seatRefusal(id, child.record.seat, context.turn?.seat);
    if (refusal) throw new SubagentError(refusal);
    if (child.record.status === 'running') {
      child.inbox.push(message);
      return `Sent to subagent '${id}': it reads it once its current work is done. Use wait(agent_id='${id}') for its answer.`;
    }
    if (child.record.status === 'over-budget') throw new SubagentError(`Subagent '${id}' used its budget of ${this.settings.maxTokens.toLocaleString('en-US')} tokens; start a new one instead.`);
    if (this.#running().length >= this.settings.maxRunning) throw new SubagentError(`${this.settings.maxRunning} subagents are already working, the most at once; wait for one first.`);
    // Its session is kept (also across a restart), so it goes on from there.
    try {
      child.agent = this.#options.createChild(this.#requireParent(), child.spec);
    } catch (error) {
      throw new SubagentError(`Could not start subagent '${id}' again: ${errorMessage(error)}`);
    }
    this.#watch(child);
    this.#start(child, message, context);
    return `Subagent '${id}' is working on your message. Use wait(agent_id='${id}') for its answer.`;
  }

  async wait(id: string, timeoutMs: number, signal: AbortSignal): Promise<WaitOutcome> {
    const child = await this.#find(id, { closedToo: true });
    if (child.run) {
      let stopWaiting!: () => void;
      const aborted = new Promise<void>((resolve) => (stopWaiting = resolve));
      signal.addEventListener('abort', stopWaiting, { once: true });
      try {
        await within(Promise.race([child.run, aborted]), timeoutMs);
      } finally {
        signal.removeEventListener('abort', stopWaiting);
      }
      signal.throwIfAborted();
    }
    const { record } = child;
    if (record.status === 'running') return { state: 'running', toolCalls: record.toolCalls, seconds: Math.round((Date.now() - record.startedAt) / 1000) };
    if (record.status === 'done') return { state: 'finished', text: child.text };
    return { state: 'failed', error: failureWords(record), text: child.text };
  }

  async close(id: string): Promise<void> {
    const child = await this.#find(id);
    await this.#stop([child], 'closed');
    this.#release(child);
    child.record.closed = true;
    this.#children.delete(id);
    await this.#save();
  }

  // --- the conversation's side ----------------------------------------------------------------

  /** Stops every working child (`/stop`); resolves to how many were working. */
  async stopAll(reason = 'stopped'): Promise<number> {
    const running = this.#running();
    await this.#stop(running, reason);
    return running.length;
  }

  /** Stops and closes every child (`/new`), and forgets what they shared. */
  async closeAll(): Promise<void> {
    await this.#load();
    for (const id of [...this.#children.keys()]) await this.close(id);
    await this.#shared.forget();
  }

  /**
   * The reference pool as `writer` reaches it: `parent` for the parent's own turns, a child's id
   * for that child's. References are the parent's children's: kept across the parent's turns and
   * a restart, forgotten on `/new`.
   */
  referencesFor(writer: string): ReferenceAccess {
    // Made for every turn of every conversation's agent: what the children share is made only when used.
    return {
      add: (entries) => this.#shared.referencesFor(writer).add(entries),
      search: (query, limit) => this.#shared.referencesFor(writer).search(query, limit),
    };
  }


  /** Every kept child, oldest first, with what all of them ever spent (`/status`). */
  async list(): Promise<{ records: readonly SubagentRecord[]; spent: SubagentRecords['spent'] }> {
    await this.#load();
    return { records: this.#records.records, spent: this.#records.spent };
  }

  /** Resolves once the children the parent's last answer left working are stopped. */
  afterTurn(): Promise<void> {
    return this.#ending;
  }

  /** The progress lines now (see {@link onProgress}). */
  lines(): SubagentLine[] {
    return [...(this.#thisTurn ?? [])].flatMap((id) => {
      const child = this.#children.get(id);
      const record = child?.record ?? this.#records.records.find((entry) => entry.id === id);
      if (!record) return [];
      return [{ id, task: record.task, status: record.status, toolCalls: record.toolCalls, tool: child?.tool }];
    });
  }

  /** Tells `listener` the progress lines whenever a child of the current turn moves on; returns an unsubscribe function. */
  onProgress(listener: (lines: SubagentLine[]) => void): () => void {
    const listeners = (this.#listeners ??= new Set());
    listeners.add(listener);
    return () => listeners.delete(listener);
  }

  // --- inside ---------------------------------------------------------------------------------

  #spec(id: string, sessionKey: string, cwd: string | undefined, model: string | undefined, maxTurns: number): ChildSpec {
    return {
      id,
      sessionKey,
      depth: this.depth + 1,
      cwd,
      model,
      maxTurns,
      guardrail: this.#shared.guardrail(id),
      changes: { record: async (change) => this.#children.get(id)?.recorder?.record(change) },
      ephemeral: () => this.#shared.ephemeral(id),
      requestApproval: this.#parent?.options.requestApproval && ((request) => this.#askInTurn(id, request)),
      references: this.referencesFor(id),
    };
  }

  /** One approval question at a time: the conversation holds one waiting question. */
  #askInTurn(id: string, request: ApprovalRequest): Promise<boolean> {
    const ask = this.#parent!.options.requestApproval!;
    const answer = this.#approvals.then(() => (request.signal.aborted ? false : ask({ ...request, reason: `(subagent ${id}) ${request.reason}` })));
    this.#approvals = answer.catch(() => undefined);
    return answer;
  }

  /** Follows a child's events: spend (and its budget), tool calls, progress. */
  #watch(child: Child): void {
    child.unsubscribe?.();
    const agent = child.agent!;
    child.unsubscribe = agent.subscribe((event) => {
      if (event.type === 'model_usage') {
        this.#records.charge(child.record, event.usage, event.cost);
        this.#parent?.reportChildUsage(event.model, event.usage, event.cost);
        const { input, output, cacheRead, cacheWrite } = child.record.usage;
        if (input + output + cacheRead + cacheWrite > this.settings.maxTokens && !child.overBudget) {
          child.overBudget = true;
          agent.abort();
        }
      } else if (event.type === 'tool_execution_start') {
        child.tool = event.call.name;
        this.#progress();
      } else if (event.type === 'tool_execution_end') {
        child.record.toolCalls++;
        child.tool = undefined;
      } else if (event.type === 'message_end' && event.message.role === 'assistant') {
        // What it said last, for a wait after it failed.
        const text = event.message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
        if (text.trim()) child.text = text;
      }
    });
  }

  /** Starts the child's work on `input` in the background, under the caller's turn (its rights, its workspace). */
  #start(child: Child, input: string, context: ToolContext): void {
    const agent = child.agent!;
    const { record } = child;
    Object.assign(record, { status: 'running', endedAt: undefined, error: undefined });
    child.stopped = undefined;
    child.text = '';
    child.recorder = context.changes;
    if (this.#clearLines) this.#thisTurn?.clear();
    this.#clearLines = false;
    (this.#thisTurn ??= new Set()).add(record.id);
    const turn = childTurn(context.turn, child.spec.cwd);
    child.run = (async () => {
      let status: SubagentStatus = 'done';
      const answers: string[] = [];
      try {
        for (let next: string | undefined = input; next !== undefined; ) {
          const result = await agent.invoke(next, { channel: context.turn?.sessionKey, turn, slot: context.slot });
          if (result.text.trim() !== '') answers.push(result.text);
          if (result.aborted) {
            status = child.overBudget ? 'over-budget' : 'stopped';
            break;
          }
          // Messages sent meanwhile: taken in here, with nothing awaited since the check.
          next = child.inbox.length > 0 ? child.inbox.splice(0).join('\n\n') : undefined;
        }
        child.text = answers.join('\n') || child.text;
      } catch (error) {
        status = child.overBudget ? 'over-budget' : child.stopped ? 'stopped' : 'failed';
        if (status === 'failed') record.error = errorMessage(error);
      }
      if (status === 'stopped') record.error = child.stopped ?? 'stopped';
      Object.assign(record, { status, endedAt: Date.now() });
      // A child that failed as a whole (its model refused, its budget ran out) is an insight for its siblings too.
      if (status === 'failed' || status === 'over-budget') await this.#shared.childFailed(record.id, record.task, failureWords(record));
      child.tool = undefined;
      child.inbox = [];
      this.#release(child);
      this.#progress();
      await this.#save();
    })();
    void this.#save();
    this.#progress();
  }

  /** Lets go of a child's agent once it is done: a finished child costs its record, its session stays stored. */
  #release(child: Child): void {
    const agent = child.agent;
    if (!agent || agent.phase !== 'idle') return;
    child.unsubscribe?.();
    child.unsubscribe = undefined;
    child.agent = undefined;
    agent.dispose();
    agent.sessions.evict(child.record.sessionKey);
  }

  async #stop(children: readonly Child[], reason: string): Promise<void> {
    for (const child of children) {
      if (child.record.status !== 'running') continue;
      child.stopped = reason;
      child.agent?.abort();
    }
    await within(Promise.all(children.map((child) => child.run)), stopGraceMs);
  }

  /** The parent's answer ended: children still working are stopped, the shared state forgotten. */
  async #turnEnded(): Promise<void> {
    await this.stopAll('its parent finished its answer without waiting for it');
    await this.#sharedWork?.turnEnded();
    // The lines stay readable until the next turn starts a child (the chat's last progress edit).
    this.#clearLines = true;
  }

  /** Past `maxOpen` children, closes the oldest finished one. */
  async #makeRoom(): Promise<void> {
    const open = [...this.#children.values()];
    if (open.length < this.settings.maxOpen) return;
    const finished = open.filter((child) => child.record.status !== 'running').sort((a, b) => (a.record.endedAt ?? 0) - (b.record.endedAt ?? 0));
    if (finished[0]) await this.close(finished[0].record.id);
  }

  async #workingDirectory(wanted: string | undefined, context: ToolContext): Promise<string | undefined> {
    if (wanted === undefined) return context.turn?.workspace?.cwd;
    const target = resolve(context.cwd, wanted);
    const roots = context.turn?.workspace?.roots ?? [context.cwd];
    if (!roots.some((root) => inside(resolve(root), target))) throw new SubagentError(`working_dir ${wanted} is outside the workspace.`);
    const info = await stat(target).catch(() => undefined);
    if (!info?.isDirectory()) throw new SubagentError(`working_dir ${wanted} is not a folder.`);
    return target;
  }

  async #find(id: string, options: { closedToo?: boolean } = {}): Promise<Child> {
    await this.#load();
    const child = this.#children.get(id);
    if (child) return child;
    const record = this.#records.records.find((entry) => entry.id === id);
    if (record && options.closedToo) return { record, spec: this.#spec(id, record.sessionKey, undefined, undefined, this.settings.maxTurns), inbox: [], text: '' };
    if (record) throw new SubagentError(`Subagent '${id}' was closed.`);
    const known = [...this.#children.keys()];
    throw new SubagentError(`No subagent '${id}' here.${known.length > 0 ? ` Open ones: ${known.join(', ')}.` : ' None is open.'}`);
  }

  #running(): Child[] {
    return [...(this.#childrenMade?.values() ?? [])].filter((child) => child.record.status === 'running');
  }

  #newId(): string {
    const taken = new Set(this.#records.records.map((record) => record.id));
    for (;;) {
      const id = randomBytes(2).toString('hex');
      if (!taken.has(id)) return id;
    }
  }

  /** Reads the stored children once: open ones come back addressable (interrupted ones without an agent); and what they shared. */
  #load(): Promise<void> {
    this.#loaded ??= Promise.all([this.#records.load(), this.#shared.load()]).then(() => {
      for (const record of this.#records.records) {
        if (record.closed || this.#children.has(record.id)) continue;
        this.#children.set(record.id, { record, spec: this.#spec(record.id, record.sessionKey, undefined, undefined, this.settings.maxTurns), inbox: [], text: '' });
      }
    });
    this.#loaded.catch(() => (this.#loaded = undefined));
    return this.#loaded;
  }

  async #save(): Promise<void> {
    // A failing store costs the record, never the child's work or the parent's turn.
    await this.#records.save().catch(() => undefined);
  }

  #progress(): void {
    if (!this.#listeners || this.#listeners.size === 0) return;
    const lines = this.lines();
    for (const listener of this.#listeners) listener(lines);
  }

  #requireParent(): Agent {
    if (!this.#parent) throw new SubagentError('Subagents are not available here.');
    return this.#parent;
  }
}
