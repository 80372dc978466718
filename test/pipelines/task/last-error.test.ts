/** The task workflow's last failure: summary, command, tail, signature and class (src/pipelines/task/last-error.ts). */
import { describe, expect, it } from 'vitest';
import { lastErrorOf } from '../../../src/pipelines/task/last-error.ts';

const vitestFailure = (ms: number, line: number) =>
  [
    ' RUN  v3.2.4 /home/ada/project',
    ` FAIL  test/sum.test.ts > sum > adds two numbers`,
    `AssertionError: expected 5 to be 4 // Object.is equality`,
    ` ❯ test/sum.test.ts:${line}:21`,
    ` Test Files  1 failed (1)`,
    `      Tests  1 failed | 3 passed (4)`,
    `   Duration  ${ms}ms`,
  ].join('\n');

describe('the last error', () => {
  it('is nothing for a command that passed', () => {
    expect(lastErrorOf('npm test', { exitCode: 0, output: 'all good' })).toBeUndefined();
  });

  it("names a failing test in its summary, keeps the command and the output's end, and is recoverable", () => {
    const error = lastErrorOf('npm test', { exitCode: 1, output: vitestFailure(412, 7) })!;
    expect(error).toMatchObject({ summary: 'FAIL  test/sum.test.ts > sum > adds two numbers', reproCommand: 'npm test', category: 'recoverable' });
    expect(error.stderrTail).toContain('Tests  1 failed | 3 passed (4)');
    expect(error.signature).toMatch(/^[0-9a-f]{12}$/);
  });

  it('keeps its signature while the same test fails (times, lines and folders aside), and changes it for another failure', () => {
    const first = lastErrorOf('npm test', { exitCode: 1, output: vitestFailure(412, 7) })!;
    const again = lastErrorOf('npm test', { exitCode: 1, output: vitestFailure(977, 9).replace('/home/ada/project', '/tmp/work/project') })!;
    const other = lastErrorOf('npm test', { exitCode: 1, output: vitestFailure(412, 7).replaceAll('adds two numbers', 'subtracts') })!;
    expect(again.signature).toBe(first.signature);
    expect(other.signature).not.toBe(first.signature);
  });

  it('is fatal when no change to the work can fix it, saying why', () => {
    expect(lastErrorOf('cargo test', { exitCode: 127, output: 'sh: 1: cargo: not found' })).toMatchObject({ category: 'fatal', reason: 'the command (or a program it runs) is not installed' });
    expect(lastErrorOf('npm test', { exitCode: null, output: '', refused: 'network access is off' })).toMatchObject({ category: 'fatal', summary: 'refused: network access is off' });
    expect(lastErrorOf('npm ci', { exitCode: 1, output: 'npm ERR! request to https://registry.npmjs.org/x failed, reason: getaddrinfo EAI_AGAIN registry.npmjs.org' })).toMatchObject({ category: 'fatal', reason: 'the network is not reachable from the sandbox' });
    expect(lastErrorOf('make', { exitCode: 2, output: 'write error: No space left on device' })?.category).toBe('fatal');
  });

  it('is recoverable when the command was stopped (a hang the work may cause), and bounds what it keeps', () => {
    expect(lastErrorOf('npm test', { exitCode: null, output: 'running...' })).toMatchObject({ category: 'recoverable', summary: 'running...' });
    const long = Array.from({ length: 500 }, (_, index) => `line ${index} ${'x'.repeat(200)}`).join('\n');
    const error = lastErrorOf('npm test', { exitCode: 1, output: long })!;
    expect(error.stderrTail.split('\n').length).toBeLessThanOrEqual(40);
    expect(error.stderrTail.length).toBeLessThanOrEqual(4_000);
    expect(error.summary.length).toBeLessThanOrEqual(200);
  });
});
