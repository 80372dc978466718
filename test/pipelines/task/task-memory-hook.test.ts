/**
 * The task memory hook (src/pipelines/task/task-memory-hook.ts) in the real engine, with bash in
 * a small Node package (a git repository with one failing test): each agent step's prompt gets
 * the context pack and the memory in their sections, the check runs the test command read from
 * the package, a failing check's last error reaches the next attempt, the files changed are
 * recorded (a secret-looking file never shown), and a passing check is a milestone; a refused check is fatal and routed on
 * (`task.fatal`); a resumed run keeps the state; a graph without `task_memory` gets none of it.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runPipeline } from '../../../src/pipelines/engine/engine.ts';
import { QueueInterviewer } from '../../../src/pipelines/engine/interviewer.ts';
import { newRunId, RunStore, type RunRecord } from '../../../src/pipelines/engine/run-record.ts';
import { parsePipeline } from '../../../src/pipelines/graph/parse.ts';
import type { CodergenRequest } from '../../../src/pipelines/handlers/codergen-handler.ts';
import { createHandlerRegistry } from '../../../src/pipelines/handlers/registry.ts';
import type { CommandRunner } from '../../../src/pipelines/handlers/tool-handler.ts';
import { createTaskMemoryHook, taskMemoryOn, taskStateKey } from '../../../src/pipelines/task/task-memory-hook.ts';
import { taskStateOf } from '../../../src/pipelines/task/task-state.ts';
import { createStore } from '../../../src/store/unstorage-store.ts';
import { bashRunner } from './bash-runner.ts';

let folder: string | undefined;
afterEach(() => {
  if (folder) rmSync(folder, { recursive: true, force: true });
  folder = undefined;
});

const buggy = 'export const sum = (a, b) => a - b;\n';
const fixed = 'export const sum = (a, b) => a + b;\n';

/** A Node package whose one test fails until src/sum.js adds, committed to git. */
function nodePackage(): string {
  folder = mkdtempSync(join(tmpdir(), 'operator-task-hook-'));
  const files = {
    'package.json': JSON.stringify({ name: 'sum', type: 'module', scripts: { test: 'node --test' } }),
    'src/sum.js': buggy,
    'test/sum.test.js': "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { sum } from '../src/sum.js';\n\ntest('sum adds', () => assert.equal(sum(1, 2), 3));\n",
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(folder, path)), { recursive: true });
    writeFileSync(join(folder, path), text);
  }
  const git = (...args: string[]) => execFileSync('git', args, { cwd: folder, stdio: 'ignore' });
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'start');
  return folder;
}

const fixLoop = `digraph fix {
  goal="Make the sum test pass"
  task_memory=true
  start [shape=Mdiamond]
  work [prompt="Fix it.\\n\\n{task.context}" max_visits=3]
  check [type="tool" tool_command="{task.test_command}"]
  report [prompt="Report.\\n\\n{task.context}"]
  done [shape=Msquare]
  start -> work -> check
  check -> done [condition="outcome = success"]
  check -> work [condition="outcome = fail && task.fatal != true"]
  check -> report [condition="outcome = fail && task.fatal = true"]
  report -> done
}`;

async function run(source: string, options: { runCommand: CommandRunner; agent: (request: CodergenRequest) => string; context?: Record<string, unknown>; start?: string; untested?: 'pass' | 'fail' }) {
  const pipeline = parsePipeline(source, 'fix.dot');
  const prompts: CodergenRequest[] = [];
  const handlers = createHandlerRegistry({
    codergen: async (request) => {
      prompts.push(request);
      return { text: options.agent(request) };
    },
    runCommand: options.runCommand,
  });
  const runs = new RunStore(createStore({ driver: 'memory' }));
  const record: RunRecord = { id: newRunId(), pipeline: pipeline.name, source, status: 'running', currentNode: options.start ?? pipeline.startNode, nodeBegun: false, completedNodes: [], nodeOutcomes: {}, nodeRetries: {}, steps: options.start ? 1 : 0, context: { data: { goal: pipeline.goal, ...options.context }, logs: [] }, startedAt: Date.now(), updatedAt: Date.now() };
  await runs.create(record);
  const hooks = taskMemoryOn(pipeline.attributes) ? [createTaskMemoryHook({ runCommand: options.runCommand, signal: new AbortController().signal, untested: options.untested })] : [];
  const final = await runPipeline(pipeline, record, { handlers, runs, interviewer: new QueueInterviewer([]), hooks });
  return { final, prompts, state: taskStateOf(final.context.data[taskStateKey]) };
}

describe('the task memory hook', () => {
  it('gives each step the pack and the memory, runs the package\'s tests, and records the failure, the fix and the files changed', async () => {
    const cwd = nodePackage();
    // A secret file that holds the keywords: never searched for or shown.
    writeFileSync(join(cwd, '.env'), 'SUM_ADDS_TOKEN=hunter2-sum-adds\n');
    const commands: string[] = [];
    let attempts = 0;
    const { final, prompts, state } = await run(fixLoop, {
      runCommand: bashRunner(cwd, commands),
      agent: () => {
        attempts++;
        if (attempts === 2) writeFileSync(join(cwd, 'src/sum.js'), fixed);
        return attempts === 1 ? 'Looked at it; changed nothing.' : 'Made sum add.';
      },
    });
    expect(final.status).toBe('finished');
    expect(commands).toContain('npm test');
    expect(prompts).toHaveLength(2);

    const [first, second] = prompts.map((request) => request.prompt);
    for (const prompt of [first!, second!]) {
      for (const section of ['# Goal', '# Project Profile', '# Memory', '## Task Overview', '## Current State', '## Next Steps Guidance']) expect(prompt).toContain(`${section}\n`);
      expect(prompt).toContain('Test command: npm test');
      // Shown once: in the prompt, not again among the context's lines.
      expect(prompt.split('# Project Profile').length).toBe(2);
      expect(prompt).not.toContain('task.context:');
      expect(prompt).not.toContain('hunter2');
    }
    expect(first).toContain('The checks have not run yet.');
    // The second attempt sees the failure: its error, the test output, the file it names.
    expect(second).toContain('# Recent Error\n');
    expect(second).toMatch(/Reproduce with: npm test/);
    expect(second).toContain('# Test Results\nFailed:');
    expect(second).toContain('### src/sum.js\nexport const sum = (a, b) => a - b;');
    expect(second).toContain('## Recent Activity\n- work (attempt 1): success: Looked at it; changed nothing.\n- check (attempt 1): fail');

    expect(state.facts.modifiedFiles).toEqual(['src/sum.js']);
    expect(state.artifacts.currentDiff).toContain('+export const sum = (a, b) => a + b;');
    expect(state.artifacts.verificationSuccess).toBe(true);
    expect(state.lastError).toBeUndefined();
    expect(state.longTerm.milestones).toEqual([expect.stringContaining('The checks passed (`npm test`)')]);
    expect(final.context.data['task.fatal']).toBe(false);
    // The renderings are one step's: not kept in the checkpoint.
    expect(final.context.data).not.toHaveProperty('task.context');
  });

  it('routes a refused check as fatal (no attempt after it), the report seeing why', async () => {
    const cwd = nodePackage();
    const bash = bashRunner(cwd);
    const refusing: CommandRunner = (command, options) => (command === 'npm test' ? Promise.resolve({ exitCode: null, output: '', refused: 'network and package scripts are off here' }) : bash(command, options));
    const { final, prompts, state } = await run(fixLoop, { runCommand: refusing, agent: () => 'done' });
    expect(final.status).toBe('finished');
    expect(prompts.map((request) => request.node.name)).toEqual(['work', 'report']);
    expect(state.lastError).toMatchObject({ category: 'fatal', summary: 'refused: network and package scripts are off here' });
    expect(final.context.data['task.fatal']).toBe(true);
    expect(prompts[1]!.prompt).toContain('## Critical Warnings\nFATAL: a guardrail refused the command');
  });

  it('goes on with the state a resumed run kept', async () => {
    const cwd = nodePackage();
    const first = await run(fixLoop, { runCommand: bashRunner(cwd), agent: () => 'Tried something.', });
    expect(first.state.facts.attempts.length).toBeGreaterThan(3);
    const kept = JSON.parse(JSON.stringify(first.final.context.data[taskStateKey])) as unknown;
    const resumed = await run(fixLoop, { runCommand: bashRunner(cwd), agent: () => 'Reporting.', context: { [taskStateKey]: kept }, start: 'report' });
    expect(resumed.prompts[0]!.prompt).toContain(`Steps so far: ${first.state.facts.attempts.length}`);
    expect(resumed.prompts[0]!.prompt).toContain('- Learned: The last change did not alter the failure of `npm test`');
  });

  it('says when the workspace has no test command, and passes or fails the check as the graph says (task_untested)', async () => {
    folder = mkdtempSync(join(tmpdir(), 'operator-task-hook-'));
    writeFileSync(join(folder, 'notes.txt'), 'nothing to test\n');
    const passing = await run(fixLoop, { runCommand: bashRunner(folder), agent: () => 'x' });
    expect(passing.final.context.data['check.output']).toContain('No test command found (no npm test, cargo, go, pytest or make test): nothing was verified.');
    expect(passing.final.context.data['check.exit_code']).toBe(0);
    const failing = await run(fixLoop, { runCommand: bashRunner(folder), agent: () => 'x', untested: 'fail' });
    expect(failing.final.context.data['check.exit_code']).toBe(1);
    expect(failing.state.changesTracked).toBe(false);
    expect(failing.prompts[1]!.prompt).toContain('The workspace is not a git repository: the files changed are not tracked.');
  });

  it('does nothing for a graph without task_memory', async () => {
    const cwd = nodePackage();
    const commands: string[] = [];
    const plain = fixLoop.replace('task_memory=true', '');
    const { prompts, final } = await run(plain, { runCommand: bashRunner(cwd, commands), agent: () => 'x' });
    expect(prompts[0]!.prompt).not.toContain('# Goal');
    expect(final.context.data).not.toHaveProperty(taskStateKey);
  });
});
