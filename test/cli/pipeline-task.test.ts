/**
 * The shipped task workflow end to end: `operator pipeline run task` on a small real project (a
 * Node package in git whose one `node --test` test fails), the fake model scripted to fix it
 * through the file tools, the plan's gate answered on stdin, VERIFY running the test command read
 * from the package (`npm test`) in the sandbox and passing; every step's model request carries the
 * context pack and the memory in their sections, the later ones the plan, the files changed and
 * the passing checks.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../fakes/fake-model-server.ts';
import { usePipelineCli } from '../helpers/pipeline-cli.ts';

const cli = usePipelineCli('operator-pipeline-task-');

const fixed = 'export const sum = (a, b) => a + b;\n';

/** The text of a request's first user message: the step's prompt. */
const promptOf = (request: RecordedRequest) => {
  const first = (request.body.messages as { role: string; content: string | { type: string; text?: string }[] }[]).find((message) => message.role === 'user')!;
  return typeof first.content === 'string' ? first.content : first.content.map((part) => part.text ?? '').join('');
};

describe('the task workflow', () => {
  it('fixes a failing test: each step sees the pack and the memory, VERIFY runs the package\'s tests and passes', async () => {
    cli.setUp({
      'package.json': JSON.stringify({ name: 'sum', type: 'module', scripts: { test: 'node --test' } }),
      'sum.js': 'export const sum = (a, b) => a - b;\n',
      'sum.test.js': "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { sum } from './sum.js';\n\ntest('sum adds', () => assert.equal(sum(1, 2), 3));\n",
    });
    const git = (...args: string[]) => execFileSync('git', args, { cwd: cli.workspace, stdio: 'ignore' });
    git('init', '-q');
    git('add', '-A');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'start');

    cli.server.setDefault((request) => {
      const prompt = promptOf(request);
      if (JSON.stringify(request.body.messages).includes('tool_result')) return { text: 'Made sum add in sum.js.' };
      if (prompt.includes('ACT.')) return { toolCalls: [{ name: 'write_file', arguments: { path: 'sum.js', content: fixed } }] };
      if (prompt.includes('The task is done')) return { text: 'sum.js now adds; npm test passes.' };
      if (prompt.includes('PLAN.')) return { text: '1. Make sum add in sum.js\n2. Run npm test' };
      if (prompt.includes('DISCOVER.')) return { text: 'A Node package: sum.js, its test sum.test.js (node --test), failing.' };
      return { text: 'unexpected step' };
    });
    const run = cli.operator(['run', 'task', '--goal', 'Fix sum.js so that its test passes']);
    await run.output.waitFor('Go ahead?');
    run.send('1');
    expect(await run.exited, run.output.stderr()).toBe(0);
    const out = run.output.stdout();
    for (const step of ['> discover', '> plan', '> approve', '> act', '> verify', '> summarize', '> done']) expect(out).toContain(step);
    expect(out).not.toContain('> report');
    expect(out).toContain('verify.exit_code: 0');
    expect(out).toMatch(/verify\.output: [\s\S]*# pass 1/);
    expect(readFileSync(join(cli.workspace, 'sum.js'), 'utf8')).toBe(fixed);

    const prompts = cli.server.requests.filter((request) => !JSON.stringify(request.body.messages).includes('tool_result')).map(promptOf);
    const step = (name: string) => prompts.find((prompt) => prompt.startsWith(`[Pipeline "task", step "${name}"]`))!;
    for (const name of ['discover', 'plan', 'act', 'summarize']) {
      const prompt = step(name);
      expect(prompt, name).toBeDefined();
      for (const section of ['# Goal\nFix sum.js so that its test passes', '# Project Profile\nLanguage: JavaScript\nPackage manager: npm\nTest command: npm test', '# Relevant Files\n### sum.js\n', '# Memory\n## Task Overview\n', '## Current State\n', '## Next Steps Guidance\n']) {
        expect(prompt, `${name}: ${section}`).toContain(section);
      }
    }
    expect(step('discover')).toContain('The checks have not run yet.');
    expect(step('act')).toContain('## Execution Plan\n1. Make sum add in sum.js');
    expect(step('act')).toContain('- Decision: At approve the person chose: Go');
    const summary = step('summarize');
    expect(summary).toContain('## Modified Files Content\nModified: sum.js');
    expect(summary).toContain('+export const sum = (a, b) => a + b;');
    expect(summary).toContain('# Test Results\nPassed:');
    expect(summary).toContain('- Milestone: The checks passed (`npm test`)');
    expect(summary).toContain('## Current State\nThe checks pass.');
  });
});
