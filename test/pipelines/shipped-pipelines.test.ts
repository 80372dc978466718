/**
 * The pipelines operator ships (`pipelines/task.dot`, `pipelines/coder.dot`): they validate
 * without a finding, and run through the real engine and handlers, the agent stood in for by a
 * script that writes files, the checks run by bash (`make test`) in a temp workspace: the task
 * workflow with its plan approved after one change, and with its checks failing until it gives
 * up; the auto-fix loop passing on its second attempt with the first failure in view, and giving
 * up after three.
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runPipeline } from '../../src/pipelines/engine/engine.ts';
import { QueueInterviewer } from '../../src/pipelines/engine/interviewer.ts';
import type { PipelineEvent } from '../../src/pipelines/engine/pipeline-events.ts';
import { newRunId, RunStore, type RunRecord } from '../../src/pipelines/engine/run-record.ts';
import { parsePipeline } from '../../src/pipelines/graph/parse.ts';
import { validatePipeline } from '../../src/pipelines/graph/validate.ts';
import type { CodergenRequest } from '../../src/pipelines/handlers/codergen-handler.ts';
import { createHandlerRegistry } from '../../src/pipelines/handlers/registry.ts';
import type { CommandRunner } from '../../src/pipelines/handlers/tool-handler.ts';
import { createTaskMemoryHook, taskMemoryOn } from '../../src/pipelines/task/task-memory-hook.ts';
import { findPipeline, listPipelines } from '../../src/pipelines/pipeline-files.ts';
import { runnableHandlers } from '../../src/pipelines/pipeline-runner.ts';
import { builtinRoot } from '../../src/resources/layers.ts';
import { createStore } from '../../src/store/unstorage-store.ts';
import { makeTempDir } from '../helpers/temp-dir.ts';

const shipped = (name: string) => readFile(join(builtinRoot, 'pipelines', `${name}.dot`), 'utf8');

/** Runs the shipped pipeline `name` in a workspace whose `make test` passes once NOTES.md says "ready". */
async function runShipped(name: string, options: { goal: string; answers?: string[]; agent: (request: CodergenRequest, cwd: string) => Promise<string> | string }) {
  const workspace = await makeTempDir('operator-shipped-');
  await writeFile(join(workspace, 'Makefile'), 'test:\n\t@grep -q ready NOTES.md && echo "all checks pass" || (echo "NOTES.md is not ready"; exit 1)\n');
  const cwd = workspace;
  const source = await shipped(name);
  const pipeline = { ...parsePipeline(source, `${name}.dot`), goal: options.goal };
  const prompts: CodergenRequest[] = [];
  const events: PipelineEvent[] = [];
  const interviewer = new QueueInterviewer(options.answers ?? []);
  const runCommand: CommandRunner = (command, { signal }) =>
    new Promise((resolve) =>
      execFile('bash', ['-c', command], { cwd, signal, encoding: 'utf8' }, (error, stdout, stderr) => resolve({ exitCode: error ? ((error as { code?: number }).code ?? null) : 0, output: `${stdout}${stderr}` })),
    );
  const handlers = createHandlerRegistry({
    codergen: async (request) => {
      prompts.push(request);
      return { text: await options.agent(request, cwd) };
    },
    runCommand,
  });
  // As the runner adds it for a graph with task_memory=true (the shipped ones).
  expect(taskMemoryOn(pipeline.attributes)).toBe(true);
  const hooks = [createTaskMemoryHook({ runCommand, signal: new AbortController().signal, untested: pipeline.attributes.task_untested === 'fail' ? 'fail' : 'pass' })];
  const runs = new RunStore(createStore({ driver: 'memory' }));
  const record: RunRecord = { id: newRunId(), pipeline: pipeline.name, source, status: 'running', currentNode: pipeline.startNode, nodeBegun: false, completedNodes: [], nodeOutcomes: {}, nodeRetries: {}, steps: 0, context: { data: { goal: options.goal }, logs: [] }, startedAt: Date.now(), updatedAt: Date.now() };
  await runs.create(record);
  const final = await runPipeline(pipeline, record, { handlers, runs, interviewer, hooks, onEvent: (event) => events.push(event) });
  const walked = events.filter((event) => event.type === 'node_start').map((event) => (event as { node: string }).node);
  return { final, prompts, walked, interviewer };
}

describe('shipped pipelines', () => {
  it.each(['task', 'coder'])('%s.dot validates without a finding and is found by name', async (name) => {
    const findings = validatePipeline(parsePipeline(await shipped(name), `${name}.dot`), { knownHandlers: runnableHandlers });
    expect(findings).toEqual([]);
    expect(findPipeline(name, { home: '/nonexistent', profile: 'default', builtin: builtinRoot })).toBe(join(builtinRoot, 'pipelines', `${name}.dot`));
  });

  it('lists the shipped ones, and a name that is a path is never looked up', async () => {
    expect((await listPipelines({ home: '/nonexistent', profile: 'default', builtin: builtinRoot })).map((entry) => entry.name)).toEqual(['coder', 'task']);
    expect(findPipeline('../task', { home: '/nonexistent', profile: 'default', builtin: builtinRoot })).toBeUndefined();
  });

  it('task: discovers, plans, takes a change to the plan, acts, verifies and summarizes', async () => {
    const { final, prompts, walked, interviewer } = await runShipped('task', {
      goal: 'Get NOTES.md ready',
      answers: ['Change', 'Mention the date too', 'Go'],
      agent: async (request, cwd) => {
        if (request.node.name === 'act') await writeFile(join(cwd, 'NOTES.md'), 'ready\n');
        return `${request.node.name} answer`;
      },
    });
    expect(final.status).toBe('finished');
    expect(walked).toEqual(['start', 'discover', 'plan', 'approve', 'revise', 'plan', 'approve', 'act', 'verify', 'summarize', 'done']);
    expect(interviewer.asked[0]!.text).toContain('The plan:\n\nplan answer\n\nGo ahead?');
    expect(interviewer.asked[0]!.options.map((option) => option.label)).toEqual(['Go', 'Change', 'Stop']);
    const plans = prompts.filter((request) => request.node.name === 'plan');
    expect(plans[0]!.prompt).toContain('What the person asked to change in the last plan, if anything: \n');
    expect(plans[1]!.prompt).toContain('What the person asked to change in the last plan, if anything: Mention the date too');
    expect(prompts.find((request) => request.node.name === 'summarize')!.prompt).toContain('all checks pass');
  });

  it('task: stops at the gate when the person says stop, and reports after four failed rounds', async () => {
    const stopped = await runShipped('task', { goal: 'x', answers: ['Stop'], agent: () => 'ok' });
    expect(stopped.final.status).toBe('finished');
    expect(stopped.walked).toEqual(['start', 'discover', 'plan', 'approve', 'done']);

    const failing = await runShipped('task', { goal: 'Get NOTES.md ready', answers: ['Go'], agent: () => 'did something' });
    expect(failing.final.status).toBe('finished');
    expect(failing.walked.filter((node) => node === 'verify')).toHaveLength(4);
    expect(failing.walked.slice(-2)).toEqual(['report', 'done']);
    expect(failing.final.nodeOutcomes.act).toBe('fail');
    const lastAct = failing.prompts.filter((request) => request.node.name === 'act').at(-1)!;
    expect(lastAct.prompt).toContain('NOTES.md is not ready');
  });

  it('coder: passes on the second attempt, which sees the first failure', async () => {
    let attempts = 0;
    const { final, prompts, walked } = await runShipped('coder', {
      goal: 'Make NOTES.md ready',
      agent: async (request, cwd) => {
        if (request.node.name !== 'fix') return 'report';
        attempts++;
        await writeFile(join(cwd, 'NOTES.md'), attempts === 1 ? 'draft\n' : 'ready\n');
        return attempts === 1 ? 'wrote a draft' : 'wrote ready';
      },
    });
    expect(final.status).toBe('finished');
    expect(walked).toEqual(['start', 'fix', 'check', 'fix', 'check', 'done_report', 'done']);
    const second = prompts.filter((request) => request.node.name === 'fix')[1]!.prompt;
    expect(second).toContain('feedback_history (earlier attempts that failed: do not repeat them):');
    expect(second).toMatch(/1\. tried: wrote a draft -> check failed: .*NOTES\.md is not ready/);
  });

  it('coder: gives up after three failed attempts, with all three in view', async () => {
    let attempts = 0;
    const { final, prompts, walked } = await runShipped('coder', { goal: 'Make NOTES.md ready', agent: (request) => (request.node.name === 'fix' ? `attempt ${++attempts}` : 'Here is what failed.') });
    expect(final.status).toBe('finished');
    // Three attempts ran; the fourth visit was refused by max_visits, and its failure route gave up.
    expect(walked.filter((node) => node === 'fix')).toHaveLength(3);
    expect(walked.filter((node) => node === 'check')).toHaveLength(3);
    expect(walked.slice(-2)).toEqual(['give_up', 'done']);
    expect(final.nodeOutcomes.fix).toBe('fail');
    const giveUp = prompts.find((request) => request.node.name === 'give_up')!.prompt;
    for (const attempt of [1, 2, 3]) expect(giveUp).toContain(`tried: attempt ${attempt} -> check failed`);
    expect(attempts).toBe(3);
  });
});
