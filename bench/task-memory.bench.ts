/**
 * The task workflow's memory on a 2,000-file workspace (a git repository of a generated
 * TypeScript package: 2,000 source files, one failing test named in the last error).
 *
 * All through the real command runner in the default sandbox (bubblewrap when there is one), as a
 * pipeline's `tool` node runs, against the floor measured in the same run: the runner's bare
 * `true` command. Figures are medians of 15 (after 3 warm-ups), each less the floor times the
 * sandboxed commands it runs (what the work costs beyond starting them):
 * - index build: the listing (`git ls-files`) and the manifests, the profile read from them (one
 *   command), as the hook does once per run;
 * - per node, before: the hook's `beforeNode` of an agent's step whose prompt names
 *   `{task.context}` (the index built already): the keyword search and the snippets (two
 *   commands), the memory and the pack rendered;
 * - per node, after: the hook's `afterNode` of an agent's step (the attempt recorded, the changes
 *   read with `git status` and `git diff`: one command);
 * - rendering alone: the memory and the pack of a full state formatted in the process (no
 *   command), median of 2,000.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PipelineContext } from '../src/pipelines/engine/pipeline-context.ts';
import type { CommandRunner } from '../src/pipelines/handlers/tool-handler.ts';
import { parsePipeline } from '../src/pipelines/graph/parse.ts';
import { contextPackText, type ContextPack } from '../src/pipelines/task/context-pack.ts';
import { lastErrorOf } from '../src/pipelines/task/last-error.ts';
import { formatTaskMemory } from '../src/pipelines/task/task-format.ts';
import { createTaskMemoryHook, taskStateKey } from '../src/pipelines/task/task-memory-hook.ts';
import { emptyTaskState, recordAttempt, recordChanges, recordDecision, recordToolResult } from '../src/pipelines/task/task-state.ts';
import { indexWorkspace, runWith } from '../src/pipelines/task/workspace-index.ts';
import { runCommand } from '../src/tools/builtin/run-command.ts';
import { createSandbox } from '../src/tools/sandbox/create-sandbox.ts';
import { defaultSandboxSettings } from '../src/tools/sandbox/sandbox.ts';
import { elapsedMs, median, type BenchResult } from './lib.ts';

const FILES = 2_000;
const RUNS = 15;
const WARMUP = 3;

const failure = [
  'not ok 1 - total adds the lines',
  "  location: '/work/project/test/cart.test.ts:12:3'",
  '  AssertionError: expected 41 to equal 42',
  '    at src/cart/total.ts:7:11',
  '# fail 1',
].join('\n');

export default async function run(): Promise<BenchResult[]> {
  const workspace = mkdtempSync(join(tmpdir(), 'operator-bench-task-'));
  const home = mkdtempSync(join(tmpdir(), 'operator-bench-task-home-'));
  try {
    generate(workspace);
    const env = { PATH: process.env.PATH, LANG: 'C.UTF-8' };
    const sandbox = createSandbox(defaultSandboxSettings, { hidden: [home], env, slirp4netns: '/nonexistent/slirp4netns' });
    const runner: CommandRunner = async (command, { signal, timeoutMs }) => {
      const result = await runCommand({ spawn: sandbox.spawnSpec({ shell: '/bin/bash', command, cwd: workspace, writable: [workspace] }), timeoutMs: timeoutMs ?? 60_000, signal });
      return { exitCode: result.exitCode, output: [result.stdout, result.stderr].filter(Boolean).join('\n') };
    };
    const signal = new AbortController().signal;
    const commands = runWith(runner, signal);

    const floor = await timed(() => commands('true'));
    let listed = 0;
    const index = await timed(async () => {
      const built = await indexWorkspace(commands);
      listed = built.files.length;
      if (built.profile.testCommands[0] !== 'npm test') throw new Error(`the profile was not read: ${JSON.stringify(built.profile)}`);
    });

    // A state as after a few rounds: a plan, a decision, attempts, a failing test, a change.
    const state = busyState();
    const pipeline = parsePipeline('digraph t {\n task_memory=true\n start [shape=Mdiamond]\n act [prompt="ACT. {goal}\\n\\n{task.context}"]\n done [shape=Msquare]\n start -> act -> done\n}', 't.dot');
    const node = pipeline.nodes.get('act')!;
    const hook = createTaskMemoryHook({ runCommand: runner, signal });
    const context = () => new PipelineContext({ goal: 'Make the cart total test pass', [taskStateKey]: structuredClone(state) });
    await hook.beforeNode!(node, context(), { runId: 'bench', attempt: 1 });
    let packChars = 0;
    const before = await timed(async () => {
      const made = context();
      await hook.beforeNode!(node, made, { runId: 'bench', attempt: 1 });
      packChars = made.getString('task.context').length;
      if (!made.getString('task.context').includes('### src/cart/total.ts')) throw new Error('the pack misses the file the error names');
    });
    const after = await timed(async () => hook.afterNode!(node, context(), { status: 'success', output: 'Changed total.' }, { runId: 'bench', attempt: 1, durationMs: 1, final: true }));

    const pack: ContextPack = { goal: 'Make the cart total test pass', projectProfile: 'Language: TypeScript', relevantFiles: 'x'.repeat(7_000), recentError: failure, currentDiff: state.artifacts.currentDiff, testResults: failure, verificationSuccess: false, memorySummary: '' };
    const render: number[] = [];
    for (let i = 0; i < 2_000 + 100; i++) {
      const start = process.hrtime.bigint();
      const memory = formatTaskMemory(state, { goal: pack.goal });
      contextPackText({ ...pack, memorySummary: memory });
      if (i >= 100) render.push(elapsedMs(start));
    }

    // Beyond the floor of the sandboxed commands each makes (index 1, before 2, after 1): the work itself.
    const floorMs = median(floor);
    const beyond = (samples: number[], commandCount: number) => median(samples) - commandCount * floorMs;
    const row = (name: string, samples: number[], commandCount: number, extra = '') => {
      const value = beyond(samples, commandCount);
      return { name, value, unit: 'ms', target: '<= 50 ms', pass: value <= 50, note: `median ${median(samples).toFixed(1)} ms in all (${(median(samples) / floorMs).toFixed(2)}x the floor), ${commandCount} command${commandCount === 1 ? '' : 's'}${extra}` };
    };
    return [
      { name: `floor: the runner's bare \`true\` (${sandbox.kind} sandbox, median)`, value: floorMs, unit: 'ms' },
      row(`index build, ${FILES}-file git workspace, beyond its command's floor`, index, 1, `; ${listed} files listed`),
      row('per node before an agent step (search, snippets, memory, pack), beyond its commands\' floors', before, 2, `; a ${packChars}-character pack`),
      row('per node after an agent step (the attempt, git status and diff), beyond its command\'s floor', after, 1),
      { name: 'rendering alone: memory and pack of a full state (median)', value: median(render), unit: 'ms', target: '<= 1 ms', pass: median(render) <= 1 },
    ];
  } finally {
    rmSync(workspace, { recursive: true, force: true });
    rmSync(home, { recursive: true, force: true });
  }
}

/** `fn`'s durations, in ms, after the warm-ups. */
async function timed(fn: () => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < WARMUP + RUNS; i++) {
    const start = process.hrtime.bigint();
    await fn();
    if (i >= WARMUP) samples.push(elapsedMs(start));
  }
  return samples;
}

/** A TypeScript package of {@link FILES} files in 40 folders, committed, with node_modules ignored, and one change. */
function generate(root: string): void {
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'shop', scripts: { test: 'vitest run' } }));
  writeFileSync(join(root, '.gitignore'), 'node_modules/\n');
  for (let index = 0; index < FILES - 2; index++) {
    const folder = join(root, 'src', index === 0 ? 'cart' : `module${index % 40}`);
    mkdirSync(folder, { recursive: true });
    const name = index === 0 ? 'total.ts' : `file${index}.ts`;
    writeFileSync(join(folder, name), `// ${name}\nexport function value${index}(items: number[]): number {\n  return items.reduce((sum, item) => sum + item * ${index}, 0);\n}\n`.repeat(5));
  }
  mkdirSync(join(root, 'node_modules', 'dep'), { recursive: true });
  for (let index = 0; index < 500; index++) writeFileSync(join(root, 'node_modules', 'dep', `f${index}.js`), 'x');
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, stdio: 'ignore' });
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.name=bench', '-c', 'user.email=bench@example.com', 'commit', '-qm', 'start');
  writeFileSync(join(root, 'src', 'cart', 'total.ts'), '// changed\n');
}

function busyState() {
  const state = emptyTaskState();
  state.profile = { language: 'TypeScript', packageManager: 'npm', testCommands: ['npm test'] };
  state.longTerm.plan = Array.from({ length: 8 }, (_, index) => `${index + 1}. Step ${index + 1}: change src/cart/total.ts and check with npm test`).join('\n');
  recordDecision(state, 'approve', 'Go');
  for (let index = 0; index < 20; index++) recordAttempt(state, { node: index % 2 ? 'verify' : 'act', attempt: index, status: index % 2 ? 'fail' : 'success', summary: `attempt ${index}: ${'changed things '.repeat(10)}` });
  for (let index = 0; index < 3; index++) recordToolResult(state, { node: 'verify', command: 'npm test', exitCode: 1, output: `${'ok 1\n'.repeat(300)}${failure}` }, lastErrorOf('npm test', { exitCode: 1, output: failure }), true);
  recordChanges(state, { created: ['src/cart/discount.ts'], modified: ['src/cart/total.ts'], diff: `src/cart/total.ts | 4 ++--\n${'-old line\n+new line\n'.repeat(200)}` });
  return state;
}
