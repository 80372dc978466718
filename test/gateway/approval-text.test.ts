/** The approval question every platform shows: the call readable, argument by argument, never raw JSON. */
import { describe, expect, it } from 'vitest';
import { approvalQuestion } from '../../src/gateway/approval-text.ts';

describe('the approval question', () => {
  it('shows a shell command as the command', () => {
    expect(approvalQuestion({ name: 'shell', arguments: { command: 'git push --force origin main' } }, 'force-pushing rewrites history')).toBe(
      ['Approval needed: force-pushing rewrites history', 'Tool: `shell`', 'command: `git push --force origin main`'].join('\n'),
    );
  });

  it('shows a multi-line value as its first lines, and counts the rest and extra arguments', () => {
    const content = Array.from({ length: 10 }, (_, index) => `line ${index + 1}`).join('\n');
    const args = { path: 'src/a.ts', content, ...Object.fromEntries(Array.from({ length: 8 }, (_, index) => [`extra${index}`, index])) };
    const text = approvalQuestion({ name: 'write_file', arguments: args }, 'writes outside the workspace');
    expect(text).toContain('path: `src/a.ts`');
    expect(text).toContain('content:\n```\nline 1\n');
    expect(text).toContain('line 6\n```\n(4 more lines)');
    expect(text).not.toContain('line 7');
    expect(text).toContain('extra0: `0`');
    expect(text).toContain('(2 more arguments)');
    expect(text).not.toContain('{"');
  });

  it('keeps backticks in a value from closing its code span', () => {
    expect(approvalQuestion({ name: 'shell', arguments: { command: 'echo `whoami`' } }, 'r')).toContain("command: `echo 'whoami'`");
  });
});
