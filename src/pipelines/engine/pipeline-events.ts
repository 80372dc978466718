/** What a run tells as it goes: every step, so the chat, the terminal and the logs can follow it. */
import type { NodeUsage, OutcomeStatus } from '../types.ts';
import type { Answer, Question } from './interviewer.ts';
import type { RunStatus } from './run-record.ts';

/** One step of a run. */
export type PipelineEvent =
  | { type: 'run_start'; runId: string; pipeline: string; resumed: boolean }
  /** A node that had begun before a restart runs again (under its retry policy). */
  | { type: 'node_rerun'; runId: string; node: string }
  | { type: 'node_start'; runId: string; node: string; attempt: number }
  /** The whole input a `codergen` node's agent is given (what the model sees of the step). */
  | { type: 'node_prompt'; runId: string; node: string; attempt: number; prompt: string }
  | { type: 'node_end'; runId: string; node: string; status: OutcomeStatus; durationMs: number; failureReason?: string; usage?: NodeUsage }
  /** Something the person should know that does not stop the run (a setting that will not be sent). */
  | { type: 'warning'; runId: string; message: string }
  /** A handler hook threw (the run went on without it). */
  | { type: 'hook_failed'; runId: string; node: string; error: string }
  /** `delayMs`: how long the engine waits before the next attempt (the retry policy's backoff). */
  | { type: 'retry'; runId: string; node: string; attempt: number; reason: string; delayMs: number }
  /** `step`: which rule of edge selection chose it (1-5), or how else the next node was found. */
  | { type: 'edge'; runId: string; from: string; to: string; label: string; step: number | 'next_node' | 'failure_route' | 'goal_gate' }
  | { type: 'gate_asked'; runId: string; node: string; question: Question }
  | { type: 'gate_answered'; runId: string; node: string; answer: Answer }
  | { type: 'checkpoint'; runId: string; node: string }
  | { type: 'run_end'; runId: string; status: RunStatus; error?: string };
