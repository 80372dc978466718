/** The context pack rendered (src/pipelines/task/context-pack.ts): its sections in order, empty ones left out, within its limit the goal and the error kept first. */
import { describe, expect, it } from 'vitest';
import { contextPackText, packSections, type ContextPack } from '../../../src/pipelines/task/context-pack.ts';

const pack: ContextPack = {
  goal: 'Make the sum test pass',
  projectProfile: 'Language: JavaScript\nPackage manager: npm\nTest command: npm test',
  relevantFiles: `### src/sum.js\n${'x'.repeat(3_000)}`,
  recentError: 'not ok 1 - sum adds (recoverable: it exited with 1: the checks fail)\nReproduce with: npm test',
  currentDiff: `src/sum.js | 2 +-\n${'+y\n'.repeat(2_000)}`,
  testResults: '(the output is under Recent Error)',
  verificationSuccess: false,
  memorySummary: '## Task Overview\nGoal: Make the sum test pass',
};

const headings = (text: string) => [...text.matchAll(/^# (.+)$/gm)].map((match) => match[1]);

describe('the context pack', () => {
  it('shows its sections in order, and leaves out the empty ones', () => {
    expect(headings(contextPackText(pack, 100_000))).toEqual([...packSections]);
    expect(headings(contextPackText({ ...pack, recentError: '', currentDiff: '', testResults: '' }, 100_000))).toEqual(['Goal', 'Project Profile', 'Relevant Files', 'Memory']);
    expect(contextPackText(pack, 100_000)).toContain('# Test Results\nFailed:\n(the output is under Recent Error)');
  });

  it('keeps within its limit: the goal, the error and the memory first, the diff given up first', () => {
    for (const limit of [6_000, 2_000, 500]) {
      const text = contextPackText(pack, limit);
      expect(text.length).toBeLessThanOrEqual(limit);
      expect(headings(text)).toEqual(expect.arrayContaining(['Goal', 'Recent Error', 'Memory']));
    }
    expect(headings(contextPackText(pack, 2_000))).not.toContain('Current Diff');
  });
});
