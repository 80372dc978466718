/**
 * The task workflow's state: what it did (facts: files created and modified, attempts, tool
 * results) and what it knows (long-term: the plan, a summary, the person's decisions, milestones,
 * learnings), with the last failure and the verification's artifacts (diff, test output). Plain
 * JSON kept in the run's context (`_task`), so a checkpoint stores it and a resumed run goes on
 * with it. Every list is bounded: a looping run must not grow it without end.
 */
import type { LastError } from './last-error.ts';
import type { ProjectProfile } from './project-profile.ts';

/** One attempt of one node. */
export interface TaskAttempt {
  node: string;
  attempt: number;
  status: string;
  /** What it did or how it failed, in a line or two. */
  summary: string;
}

/** One command the workflow ran and how it ended. */
export interface TaskToolResult {
  node: string;
  command: string;
  exitCode: number | null;
  /** The output's end (at most {@link keptOutput} characters). */
  output: string;
}

/** The state of one task run. */
export interface TaskState {
  facts: {
    createdFiles: string[];
    modifiedFiles: string[];
    attempts: TaskAttempt[];
    toolResults: TaskToolResult[];
  };
  longTerm: {
    plan: string;
    summary: string;
    decisions: string[];
    milestones: string[];
    learnings: string[];
  };
  lastError?: LastError;
  /** Set once the workspace was read; a resumed run keeps it. */
  profile?: ProjectProfile;
  artifacts: {
    /** `git diff --stat` and the diff's start; '' when nothing changed or the workspace is no git repository. */
    currentDiff: string;
    /** The last test command's output. */
    testResults: string;
    verificationSuccess: boolean;
  };
  /** False when the workspace is no git repository: file changes are not tracked. */
  changesTracked: boolean;
}

/** Entries kept per list (the latest). */
export const keptEntries = 20;
/** Characters of a command's output kept per tool result. */
export const keptOutput = 2_000;

/** A state with nothing in it yet. */
export function emptyTaskState(): TaskState {
  return {
    facts: { createdFiles: [], modifiedFiles: [], attempts: [], toolResults: [] },
    longTerm: { plan: '', summary: '', decisions: [], milestones: [], learnings: [] },
    artifacts: { currentDiff: '', testResults: '', verificationSuccess: false },
    changesTracked: true,
  };
}

/** The state stored in the context as `value`, or an empty one when there is none or it is not a state (a hand-edited record). */
export function taskStateOf(value: unknown): TaskState {
  const empty = emptyTaskState();
  if (typeof value !== 'object' || value === null) return empty;
  const stored = value as Partial<TaskState>;
  if (typeof stored.facts !== 'object' || typeof stored.longTerm !== 'object' || typeof stored.artifacts !== 'object') return empty;
  return {
    ...empty,
    ...stored,
    facts: { ...empty.facts, ...stored.facts },
    longTerm: { ...empty.longTerm, ...stored.longTerm },
    artifacts: { ...empty.artifacts, ...stored.artifacts },
  };
}

/** Appends `entry` to `list`, keeping the latest {@link keptEntries}. */
function push<T>(list: T[], entry: T): void {
  list.push(entry);
  if (list.length > keptEntries) list.splice(0, list.length - keptEntries);
}

/** Records a node's attempt. */
export function recordAttempt(state: TaskState, attempt: TaskAttempt): void {
  push(state.facts.attempts, { ...attempt, summary: oneLine(attempt.summary, 300) });
}

/**
 * Records a command's result, and with it the last error: set (and a learning when the same
 * failure came back after a change) when it failed, cleared when it passed. A passing test
 * command is a milestone, and its output the test results.
 */
export function recordToolResult(state: TaskState, result: TaskToolResult, error: LastError | undefined, isTestCommand: boolean): void {
  push(state.facts.toolResults, { ...result, output: result.output.slice(-keptOutput) });
  if (isTestCommand) {
    state.artifacts.testResults = result.output.slice(-keptOutput);
    state.artifacts.verificationSuccess = error === undefined;
  }
  if (error && state.lastError?.signature === error.signature) {
    push(state.longTerm.learnings, oneLine(`The last change did not alter the failure of \`${result.command}\`: ${error.summary}`, 300));
  }
  if (!error && isTestCommand) push(state.longTerm.milestones, `The checks passed (\`${result.command}\`) after ${state.facts.attempts.length} step attempts.`);
  state.lastError = error;
}

/** Records what the workspace's files are now: created and modified since the run began. */
export function recordChanges(state: TaskState, changes: { created: string[]; modified: string[]; diff: string } | undefined): void {
  if (!changes) {
    state.changesTracked = false;
    return;
  }
  state.changesTracked = true;
  state.facts.createdFiles = changes.created.slice(0, 200);
  state.facts.modifiedFiles = changes.modified.slice(0, 200);
  state.artifacts.currentDiff = changes.diff;
}

/** Records a person's choice at a gate. */
export function recordDecision(state: TaskState, node: string, choice: string): void {
  push(state.longTerm.decisions, `At ${node} the person chose: ${oneLine(choice, 200)}`);
}

/** `text` on one line, cut to `max` characters. */
export function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
