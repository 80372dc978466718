/**
 * The task state rendered for a prompt: the sections the task workflow's memory has (Critical
 * Warnings, Task Overview, Execution Plan, Important Context, Recent Activity, Tool Execution
 * Results, Modified Files Content, Current State, Next Steps Guidance), in that order, within a
 * size limit. When they do not all fit, the least important give way first (the files' diff, then
 * the important context, the tool results, the activity, the plan), cut to what is left or left
 * out; the warnings, the overview, the current state and the next steps are kept first.
 */
import type { TaskState } from './task-state.ts';

/** The sections, in the order they are shown. */
export const memorySections = ['Critical Warnings', 'Task Overview', 'Execution Plan', 'Important Context', 'Recent Activity', 'Tool Execution Results', 'Modified Files Content', 'Current State', 'Next Steps Guidance'] as const;

export type MemorySection = (typeof memorySections)[number];

/** The sections from the most important (kept first) to the least. */
const priority: readonly MemorySection[] = ['Critical Warnings', 'Task Overview', 'Current State', 'Next Steps Guidance', 'Execution Plan', 'Recent Activity', 'Tool Execution Results', 'Important Context', 'Modified Files Content'];

/** The default size limit of the memory, in characters. */
export const defaultMemoryChars = 6_000;

/** A section cut to less than this is left out rather than shown as a stub. */
const smallestCut = 120;

/** Shown where a section was cut. */
const cutMarker = '\n[... cut to fit]';

/**
 * The state as the memory's sections, at most `maxChars` characters; a section with nothing to say
 * is left out.
 *
 * @example
 * formatTaskMemory(state, { goal: 'Fix the failing test' }) // '## Task Overview\nGoal: Fix...'
 */
export function formatTaskMemory(state: TaskState, options: { goal: string; maxChars?: number }): string {
  const maxChars = options.maxChars ?? defaultMemoryChars;
  const bodies = new Map<MemorySection, string>();
  for (const [section, body] of Object.entries(sectionBodies(state, options.goal)) as [MemorySection, string][]) if (body) bodies.set(section, body);

  return fitSections(memorySections, priority, bodies, maxChars, '##');
}

/**
 * `bodies` as `HEADING title` blocks in `order`, at most `maxChars` characters: each in turn of
 * `priority` gets what the ones before it left, the one that no longer fits cut to it (or left
 * out when that would be less than a stub), the rest left out.
 */
export function fitSections<T extends string>(order: readonly T[], priority: readonly T[], bodies: ReadonlyMap<T, string>, maxChars: number, heading: string): string {
  let left = maxChars;
  const shown = new Map<T, string>();
  for (const section of priority) {
    const body = bodies.get(section);
    if (body === undefined) continue;
    const block = `${heading} ${section}\n${body}`;
    const cost = block.length + 2;
    if (cost <= left) {
      shown.set(section, block);
      left -= cost;
    } else if (left - 2 >= smallestCut) {
      shown.set(section, block.slice(0, left - 2 - cutMarker.length) + cutMarker);
      left = 0;
    }
  }
  return order.flatMap((section) => shown.get(section) ?? []).join('\n\n');
}

/** Each section's text ('' for nothing to say). */
function sectionBodies(state: TaskState, goal: string): Record<MemorySection, string> {
  const { facts, longTerm, lastError, profile, artifacts } = state;
  const warnings = [
    ...(lastError?.category === 'fatal' ? [`FATAL: ${lastError.reason}. No change to the work fixes this: stop and report it.`] : []),
    ...(longTerm.learnings.length >= 2 ? [`The same failure came back ${longTerm.learnings.length} times after a change: try a different approach.`] : []),
    ...(!state.changesTracked ? ['The workspace is not a git repository: the files changed are not tracked.'] : []),
  ];
  const overview = [
    `Goal: ${goal}`,
    profile ? `Project: ${profile.language ?? 'unknown language'}, ${profile.packageManager ?? 'no package manager'}; tests: ${profile.testCommands[0] ?? 'none found'}` : '',
    `Steps so far: ${facts.attempts.length}`,
  ];
  const important = [
    ...longTerm.decisions.map((decision) => `- Decision: ${decision}`),
    ...longTerm.milestones.map((milestone) => `- Milestone: ${milestone}`),
    ...longTerm.learnings.map((learning) => `- Learned: ${learning}`),
    ...(longTerm.summary ? [`Summary: ${longTerm.summary}`] : []),
  ];
  const recent = facts.attempts.slice(-8).map((attempt) => `- ${attempt.node} (attempt ${attempt.attempt}): ${attempt.status}${attempt.summary ? `: ${attempt.summary}` : ''}`);
  const tools = facts.toolResults.slice(-3).map((result) => `$ ${result.command}\nexit ${result.exitCode ?? 'none (stopped or refused)'}\n${result.output.slice(-800)}`);
  const files = [
    ...(facts.createdFiles.length > 0 ? [`Created: ${facts.createdFiles.join(', ')}`] : []),
    ...(facts.modifiedFiles.length > 0 ? [`Modified: ${facts.modifiedFiles.join(', ')}`] : []),
    ...(artifacts.currentDiff ? [artifacts.currentDiff] : []),
  ];
  return {
    'Critical Warnings': warnings.join('\n'),
    'Task Overview': overview.filter(Boolean).join('\n'),
    'Execution Plan': longTerm.plan,
    'Important Context': important.join('\n'),
    'Recent Activity': recent.join('\n'),
    'Tool Execution Results': tools.join('\n\n'),
    'Modified Files Content': files.join('\n'),
    'Current State': currentState(state),
    'Next Steps Guidance': nextSteps(state),
  };
}

/** Where the work stands: the last error in full, or how the checks last ended. */
function currentState(state: TaskState): string {
  const error = state.lastError;
  if (error) {
    return [`Last error (${error.category}): ${error.summary}`, `Reproduce with: ${error.reproCommand}`, `Signature: ${error.signature}`, 'Output (end):', error.stderrTail].join('\n');
  }
  if (state.artifacts.verificationSuccess) return 'The checks pass.';
  return state.facts.toolResults.length > 0 ? 'No error recorded.' : 'The checks have not run yet.';
}

/** What the next step should do, from the state. */
function nextSteps(state: TaskState): string {
  const error = state.lastError;
  const test = state.profile?.testCommands[0];
  if (error?.category === 'fatal') return 'Do not try again: report what failed and why, and what a person must fix.';
  if (error) return `Fix the cause of the last error (read the output above), then check with \`${error.reproCommand}\`. Do not repeat a change that left the same failure.`;
  if (state.artifacts.verificationSuccess) return 'The checks pass: finish and summarize the change.';
  return state.longTerm.plan ? `Carry out the next step of the plan${test ? `, then the checks run (\`${test}\`)` : ''}.` : 'Learn what the task needs, then plan it.';
}
