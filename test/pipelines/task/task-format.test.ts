/**
 * The task state (src/pipelines/task/task-state.ts) and its memory in sections within a size
 * limit (task-format.ts): the sections in order, empty ones left out, the least important given
 * up first; the last error, a repeated failure and a fatal one said; the state read back from
 * its JSON (a resumed run), and an odd stored value read as an empty state.
 */
import { describe, expect, it } from 'vitest';
import { lastErrorOf } from '../../../src/pipelines/task/last-error.ts';
import { formatTaskMemory, memorySections } from '../../../src/pipelines/task/task-format.ts';
import { emptyTaskState, keptEntries, recordAttempt, recordChanges, recordDecision, recordToolResult, taskStateOf } from '../../../src/pipelines/task/task-state.ts';

const failure = 'not ok 1 - sum adds\n  AssertionError: expected -1 to equal 3\n# fail 1';

function busyState() {
  const state = emptyTaskState();
  state.profile = { language: 'JavaScript', packageManager: 'npm', testCommands: ['npm test'] };
  state.longTerm.plan = '1. Fix sum in src/sum.js\n2. Run npm test';
  recordDecision(state, 'approve', 'Go');
  recordAttempt(state, { node: 'act', attempt: 1, status: 'success', summary: 'Changed src/sum.js' });
  recordToolResult(state, { node: 'verify', command: 'npm test', exitCode: 1, output: failure }, lastErrorOf('npm test', { exitCode: 1, output: failure }), true);
  recordChanges(state, { created: ['NOTES.md'], modified: ['src/sum.js'], diff: `src/sum.js | 2 +-\n${'-old\n+new\n'.repeat(400)}` });
  return state;
}

const headings = (text: string) => [...text.matchAll(/^## (.+)$/gm)].map((match) => match[1]);

describe('the task memory', () => {
  it('shows every section with something to say, in the order of the spec', () => {
    const text = formatTaskMemory(busyState(), { goal: 'Fix the failing test', maxChars: 50_000 });
    expect(headings(text)).toEqual(['Task Overview', 'Execution Plan', 'Important Context', 'Recent Activity', 'Tool Execution Results', 'Modified Files Content', 'Current State', 'Next Steps Guidance']);
    expect(text).toContain('Goal: Fix the failing test\nProject: JavaScript, npm; tests: npm test');
    expect(text).toContain('- Decision: At approve the person chose: Go');
    expect(text).toContain('Created: NOTES.md\nModified: src/sum.js');
    expect(text).toMatch(/Last error \(recoverable\): not ok 1 - sum adds\nReproduce with: npm test\nSignature: [0-9a-f]{12}/);
    expect(text).toContain('Fix the cause of the last error');
    expect(headings(formatTaskMemory(emptyTaskState(), { goal: 'x' }))).toEqual(['Task Overview', 'Current State', 'Next Steps Guidance']);
  });

  it('keeps within its limit, the least important sections given up first', () => {
    const state = busyState();
    const full = formatTaskMemory(state, { goal: 'Fix the failing test', maxChars: 50_000 });
    for (const limit of [3_000, 1_200, 600]) {
      const text = formatTaskMemory(state, { goal: 'Fix the failing test', maxChars: limit });
      expect(text.length).toBeLessThanOrEqual(limit);
      expect(headings(text)).toEqual(expect.arrayContaining(['Task Overview', 'Current State', 'Next Steps Guidance']));
    }
    expect(full.length).toBeGreaterThan(3_000);
    expect(headings(formatTaskMemory(state, { goal: 'x', maxChars: 3_000 }))).toContain('Modified Files Content');
    expect(formatTaskMemory(state, { goal: 'x', maxChars: 3_000 })).toContain('[... cut to fit]');
    expect(headings(formatTaskMemory(state, { goal: 'x', maxChars: 600 }))).not.toContain('Modified Files Content');
    // The order of the sections shown is always the spec's.
    const shown = headings(formatTaskMemory(state, { goal: 'x', maxChars: 1_200 }));
    expect(shown).toEqual(memorySections.filter((section) => shown.includes(section)));
  });

  it('warns of a fatal failure and of one that came back after a change, and says when the checks pass', () => {
    const state = busyState();
    recordToolResult(state, { node: 'verify', command: 'npm test', exitCode: 1, output: failure.replace('-1', '-2') }, lastErrorOf('npm test', { exitCode: 1, output: failure.replace('-1', '-2') }), true);
    recordToolResult(state, { node: 'verify', command: 'npm test', exitCode: 1, output: failure }, lastErrorOf('npm test', { exitCode: 1, output: failure }), true);
    expect(state.longTerm.learnings).toHaveLength(2);
    expect(formatTaskMemory(state, { goal: 'x' })).toContain('## Critical Warnings\nThe same failure came back 2 times after a change');

    recordToolResult(state, { node: 'verify', command: 'npm test', exitCode: 127, output: 'sh: npm: not found' }, lastErrorOf('npm test', { exitCode: 127, output: 'sh: npm: not found' }), true);
    const fatal = formatTaskMemory(state, { goal: 'x' });
    expect(fatal).toContain('FATAL: the command (or a program it runs) is not installed');
    expect(fatal).toContain('Do not try again');

    recordToolResult(state, { node: 'verify', command: 'npm test', exitCode: 0, output: '# pass 1' }, undefined, true);
    expect(state.lastError).toBeUndefined();
    expect(state.artifacts).toMatchObject({ testResults: '# pass 1', verificationSuccess: true });
    expect(state.longTerm.milestones.at(-1)).toContain('The checks passed (`npm test`)');
    expect(formatTaskMemory(state, { goal: 'x' })).toContain('## Current State\nThe checks pass.');
  });

  it('bounds its lists, survives its JSON (a resumed run), and reads an odd stored value as empty', () => {
    const state = emptyTaskState();
    for (let index = 0; index < 50; index++) recordAttempt(state, { node: 'act', attempt: index, status: 'fail', summary: 'x'.repeat(1_000) });
    expect(state.facts.attempts).toHaveLength(keptEntries);
    expect(state.facts.attempts[0]!.attempt).toBe(30);
    expect(state.facts.attempts[0]!.summary.length).toBeLessThanOrEqual(300);
    recordChanges(state, undefined);
    expect(formatTaskMemory(state, { goal: 'x' })).toContain('The workspace is not a git repository');
    expect(taskStateOf(JSON.parse(JSON.stringify(state)))).toEqual(state);
    expect(taskStateOf('nonsense')).toEqual(emptyTaskState());
    expect(taskStateOf({ facts: 1 })).toEqual(emptyTaskState());
  });
});
