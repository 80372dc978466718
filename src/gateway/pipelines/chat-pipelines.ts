/**
 * Pipelines run from a chat. `/run NAME GOAL` starts `NAME.dot` (the conversation's profile's,
 * OPERATOR_HOME's or a built-in one) in the background of the conversation: its `codergen` steps
 * work as the person who started it (their tools and workspace, never more than the seat of the
 * turn that started it, which the run's record keeps, also across restarts), its gates ask in the
 * conversation (see `chat-gates.ts`), and its progress is one message edited in place (the nodes
 * done, the current one). At the end the last answer (or the failure) is said: a run a spending
 * cap stopped fails saying which. A run the gateway left by stopping or crashing goes on after
 * the next start, saying so. The engine and the DOT
 * parser load on the first run, not with the gateway (its start must stay light).
 */

/** The pipeline runner, loaded on first use. */
const runner = () => import('../../pipelines/pipeline-runner.ts');
import type { ApprovalRequest } from '../../agent/agent-options.ts';
import type { SpendGate } from '../../agent/spend-gate.ts';
import type { ChannelAdapter, ConversationAddress } from '../../channels/types.ts';
import { errorMessage } from '../../core/errors.ts';
import type { PipelineEvent } from '../../pipelines/engine/pipeline-events.ts';
import type { RunRecord } from '../../pipelines/engine/run-record.ts';
import { findPipeline, listPipelines } from '../../pipelines/pipeline-files.ts';
import type { RunOptions } from '../../pipelines/pipeline-runner.ts';
import { RunStore } from '../../pipelines/engine/run-record.ts';
import type { Runtime } from '../../runtime/runtime.ts';
import type { TurnContext } from '../../tools/tool.ts';
import { readSeat, type TurnSeat } from '../../tools/turn-seat.ts';
import { StatusMessage } from '../status-message.ts';
import type { ChatGates, RunSeat } from './chat-gates.ts';
import { readFile } from 'node:fs/promises';

/** What a run started from a chat keeps of where it came from (its record's `origin`). */
interface ChatOrigin {
  from: 'chat';
  sessionKey: string;
  address: ConversationAddress;
  scope: 'dm' | 'group';
  starterId: string;
  profile: string;
  /** The seat of the turn that started it (absent in runs from before seats were kept: the least seat). */
  makerSeat?: TurnSeat;
  /** The scheduled job's run that started it: the job's caps count its calls too. */
  job?: ScheduledRun;
}

/** A scheduled job's run, as its spending caps name it. */
type ScheduledRun = { id: string; run: string };

/** Where a run starts, for whom, the seat of the turn that starts it, and the job's run that starts it (if one does). */
export type RunStart = Omit<RunSeat, 'runId'> & { profile: string; makerSeat: TurnSeat; job?: ScheduledRun };

/** What the chat's runs need from the gateway. */
export interface ChatPipelinesOptions {
  runtime: Runtime;
  gates: ChatGates;
  adapterOf(platform: string): ChannelAdapter | undefined;
  /** The turn of `starterId` in the conversation (their tools and workspace), with no more than `makerSeat`, in `job`'s run if given. */
  turnOf(seat: RunSeat & { profile: string; makerSeat: TurnSeat; job?: ScheduledRun }): Promise<TurnContext>;
  /** The spending gate the runs' model calls pass; unset: none. */
  spend?: SpendGate;
  /** Run folders kept (operator.json `pipelines.keepRuns`); unset: the runner's default. */
  keepRuns?: number;
  /**
   * Asks an approval in the conversation `sessionKey` as its turns do (see `approvals.ts`);
   * resolves to undefined where it cannot (the conversation is not in memory): the run's gate asks then.
   */
  askApproval?(sessionKey: string, request: ApprovalRequest): Promise<boolean | undefined>;
  log(line: string): void;
}

/** The runs of the chats in this process. */
export class ChatPipelines {
  readonly #options: ChatPipelinesOptions;
  readonly #live = new Map<string, AbortController>();
  readonly #settled = new Set<Promise<unknown>>();
  /** The gateway is stopping: runs stopped now are left to go on after the next start. */
  #interrupting = false;

  constructor(options: ChatPipelinesOptions) {
    this.#options = options;
  }

  /** The pipelines `/run` can start in a conversation of `profile`. */
  async available(profile: string): Promise<string[]> {
    const { runtime } = this.#options;
    return (await listPipelines({ home: runtime.home, profile, builtin: runtime.builtin })).map((entry) => entry.name);
  }

  /** Starts pipeline `name` with `goal`; resolves to its run id once it is on record (the run goes on in the background). */
  async start(seat: RunStart, name: string, goal: string | undefined): Promise<string> {
    const { runtime } = this.#options;
    const file = findPipeline(name, { home: runtime.home, profile: seat.profile, builtin: runtime.builtin });
    if (!file) throw new Error(`No pipeline "${name}". ${await this.#offer(seat.profile)}`);
    const source = await readFile(file, 'utf8');
    const origin: ChatOrigin = { from: 'chat', ...seat };
    return new Promise<string>((resolve, reject) => {
      let started = false;
      const done = this.#drive(origin, async (options) =>
        (await runner()).startRun(source, {
          ...options,
          file,
          goal: goal || undefined,
          origin: { ...origin },
          onStarted: (record) => {
            started = true;
            resolve(record.id);
          },
        }),
      );
      done.catch((error: unknown) => {
        if (!started) reject(error);
      });
    });
  }

  /** Stops run `id` of `sessionKey` (it stays resumable). */
  stop(id: string): boolean {
    const controller = this.#live.get(id);
    controller?.abort(new Error('stopped with /run stop'));
    return controller !== undefined;
  }

  /** Goes on with run `id` of this conversation. */
  async resume(id: string, sessionKey: string): Promise<void> {
    const record = (await this.#runs()).find((run) => run.id === id);
    const origin = record?.origin as ChatOrigin | undefined;
    if (!record || origin?.sessionKey !== sessionKey) throw new Error(`No run ${id} in this conversation.`);
    if (this.#live.has(id)) throw new Error(`Run ${id} is running.`);
    if (record.status === 'finished' || record.status === 'failed') throw new Error(`Run ${id} already ${record.status}.`);
    void this.#drive(origin, async (options) => (await runner()).resumeRun(id, options)).catch(() => undefined);
  }

  /** The runs of `sessionKey`, the latest first. */
  async runsOf(sessionKey: string): Promise<Omit<RunRecord, 'source'>[]> {
    return (await this.#runs()).filter((run) => (run.origin as ChatOrigin | undefined)?.sessionKey === sessionKey);
  }

  /** After a start: runs the last process left running (or waiting at a gate) go on, saying so. */
  async resumeInterrupted(): Promise<void> {
    for (const run of await this.#runs()) {
      const origin = run.origin as ChatOrigin | undefined;
      if (origin?.from !== 'chat' || (run.status !== 'running' && run.status !== 'waiting') || this.#live.has(run.id)) continue;
      const adapter = this.#options.adapterOf(origin.address.platform);
      if (!adapter) continue;
      await adapter.send(origin.address, { text: `Run ${run.id} of ${run.pipeline} was interrupted by a restart at ${run.currentNode}: going on (${run.currentNode} runs again).` }).catch(() => undefined);
      void this.#drive(origin, async (options) => (await runner()).resumeRun(run.id, options)).catch((error: unknown) => this.#options.log(`pipeline ${run.id} not resumed: ${errorMessage(error)}`));
    }
  }

  /** Stops every run (the gateway stops): each is left where it stands and goes on after the next start. */
  async stopAll(): Promise<void> {
    this.#interrupting = true;
    for (const controller of this.#live.values()) controller.abort(new Error('the gateway stopped'));
    await Promise.allSettled([...this.#settled]);
  }

  /** Runs one run to its end with the chat as its Interviewer and a progress message. */
  /** Every stored run, the latest first (read without loading the engine). */
  #runs(): Promise<Omit<RunRecord, 'source'>[]> {
    return new RunStore(this.#options.runtime.store).list();
  }

  async #drive(origin: ChatOrigin, go: (options: RunOptions) => Promise<RunRecord>): Promise<RunRecord> {
    const { runtime, gates } = this.#options;
    const adapter = this.#options.adapterOf(origin.address.platform);
    if (!adapter) throw new Error(`no ${origin.address.platform} connection`);
    const controller = new AbortController();
    let runId = '';
    const progress = new StatusMessage(adapter, origin.address, { log: this.#options.log, what: 'pipeline progress' });
    const steps: { node: string; status?: string }[] = [];
    let name = '';
    const show = (ended?: string) => progress.update(progressText(name, runId, steps, ended));
    const onEvent = (event: PipelineEvent) => {
      const line = logLine(event);
      if (line) this.#options.log(`${origin.sessionKey}: pipeline ${event.runId}: ${line}`);
      // A manager loop's child run: in the log, not in the run's own progress.
      if (runId !== '' && event.runId !== runId) return;
      if (event.type === 'run_start') {
        runId = event.runId;
        name = event.pipeline;
        this.#live.set(runId, controller);
      } else if (event.type === 'node_start' && event.attempt === 1) {
        steps.push({ node: event.node });
      } else if (event.type === 'node_end') {
        const step = steps.findLast((entry) => entry.node === event.node);
        if (step) step.status = event.status;
      } else if (event.type === 'run_end') {
        show(event.status === 'running' || event.status === 'waiting' ? 'interrupted: it goes on after the restart' : `${event.status}${event.error ? `: ${event.error}` : ''}`);
        return;
      }
      if (event.type === 'node_start' || event.type === 'node_end') show();
    };
    const seat: RunSeat = { runId: '', sessionKey: origin.sessionKey, address: origin.address, scope: origin.scope, starterId: origin.starterId };
    const interviewer = {
      ask: (question: Parameters<ReturnType<ChatGates['interviewerFor']>['ask']>[0], signal: AbortSignal) => gates.interviewerFor({ ...seat, runId }).ask(question, signal),
      inform: (message: string) => gates.interviewerFor({ ...seat, runId }).inform(message),
    };
    const turn = await this.#options.turnOf({ ...seat, profile: origin.profile, makerSeat: readSeat(origin.makerSeat), job: origin.job });
    const { spend } = this.#options;
    const work = (async () => {
      try {
        const askApproval = this.#options.askApproval;
        const requestApproval = askApproval && ((request: ApprovalRequest) => askApproval(origin.sessionKey, request));
        const record = await go({ runtime, profile: origin.profile, interviewer, turn, onEvent, signal: controller.signal, interrupted: () => this.#interrupting, requestApproval, spend: spend && (() => spend), keepRuns: this.#options.keepRuns });
        await progress.close();
        if (record.status === 'finished' || record.status === 'failed') await adapter.send(origin.address, { text: closingText(record) }).catch((error: unknown) => this.#options.log(`${origin.sessionKey}: pipeline result not sent: ${errorMessage(error)}`));
        return record;
      } finally {
        this.#live.delete(runId);
      }
    })();
    this.#settled.add(work);
    void work.finally(() => this.#settled.delete(work)).catch(() => undefined);
    return work;
  }

  async #offer(profile: string): Promise<string> {
    const names = await this.available(profile);
    return names.length > 0 ? `Pipelines here: ${names.join(', ')}.` : 'There are no pipelines here.';
  }
}

/** The log's line for an event (none for the checkpoints, which every node has). */
function logLine(event: PipelineEvent): string | undefined {
  switch (event.type) {
    case 'run_start':
      return `${event.resumed ? 'resumed' : 'started'} (${event.pipeline})`;
    case 'node_rerun':
      return `${event.node} runs again after a restart`;
    case 'node_start':
      return `${event.node} begins (attempt ${event.attempt})`;
    case 'node_end':
      return `${event.node} ${event.status} in ${event.durationMs} ms${event.failureReason ? `: ${event.failureReason.split('\n')[0]}` : ''}`;
    case 'retry':
      return `${event.node} retries in ${(event.delayMs / 1000).toFixed(1)} s: ${event.reason.split('\n')[0]}`;
    case 'hook_failed':
      return `warning: ${event.error}`;
    case 'warning':
      return `warning: ${event.message}`;
    case 'edge':
      return `${event.from} -> ${event.to} (${typeof event.step === 'number' ? `rule ${event.step}` : event.step})`;
    case 'gate_asked':
      return `${event.node} asks: ${event.question.text.split('\n')[0]}`;
    case 'gate_answered':
      return `${event.node} answered: ${event.answer.timedOut ? `no answer in time (${event.answer.value || 'nothing'} taken)` : event.answer.value}${event.answer.by ? ` by ${event.answer.by}` : ''}`;
    case 'run_end':
      return `${event.status}${event.error ? `: ${event.error}` : ''}`;
    default:
      return undefined;
  }
}

/** The progress message: each node begun, a mark when it ended, the current one, and the end. */
function progressText(name: string, runId: string, steps: readonly { node: string; status?: string }[], ended?: string): string {
  const marks: Record<string, string> = { success: '✅', partial_success: '☑️', fail: '❌', retry: '🔁', skipped: '⏭' };
  const lines = steps.map((step) => `${step.status ? (marks[step.status] ?? '•') : '▶'} ${step.node}`);
  return [`Pipeline ${name} [${runId}]${ended ? ` ${ended}` : ''}`, ...lines].join('\n');
}

/** What is said when a run ends: its last answer, or why it failed. */
function closingText(record: RunRecord): string {
  if (record.status === 'failed') return `Run ${record.id} of ${record.pipeline} failed: ${record.error ?? 'no reason given'}`;
  const last = record.context.data.last_response;
  return typeof last === 'string' && last.trim() !== '' ? last : `Run ${record.id} of ${record.pipeline} finished.`;
}
