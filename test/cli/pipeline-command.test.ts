/**
 * `operator pipeline` as a person uses it, against the fake model: validate (clean, with errors
 * and their lines, a syntax error, --strict), run with a gate answered on stdin and a check run in
 * the sandbox, the final context printed; a run held to its spending cap; a run stopped with Ctrl+C
 * at its gate and resumed; list.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { usePipelineCli } from '../helpers/pipeline-cli.ts';

const cli = usePipelineCli('operator-pipeline-cli-');
const setUp = (files: Record<string, string>) => cli.setUp(files);
const operator = (...args: string[]) => cli.operator(args);

const task = `digraph task {
  goal="Write the release notes"
  start [shape=Mdiamond]
  plan [prompt="Plan how to {goal}"]
  approve [type="wait.human" label="Go on with the plan?"]
  write [prompt="Write them"]
  check [type="tool" tool_command="test -s NOTES.md && echo notes present"]
  done [shape=Msquare]
  start -> plan -> approve
  approve -> write [label="go"]
  approve -> done [label="stop"]
  write -> check
  check -> done
}`;

describe('operator pipeline', () => {
  it('validates: a clean file, one with errors and their lines, a syntax error, and --strict', async () => {
    setUp({
      'ok.dot': task,
      'bad.dot': 'digraph bad {\n  start [shape=Mdiamond]\n  work [type="deploy"]\n  lost\n  done [shape=Msquare]\n  start -> work -> done\n  work -> done [condition="outcome == success"]\n}\n',
      'broken.dot': 'digraph broken {\n  start -> \n}\n',
      'warned.dot': 'digraph w {\n  start [shape=Mdiamond]\n  think\n  done [shape=Msquare]\n  start -> think -> done\n}\n',
    });
    const ok = operator('validate', 'ok.dot');
    expect(await ok.exited).toBe(0);
    expect(ok.output.stdout()).toContain('ok.dot: valid.');

    const bad = operator('validate', 'bad.dot');
    expect(await bad.exited).toBe(1);
    const out = bad.output.stdout();
    expect(out).toMatch(/bad\.dot:3:\d+: error \[type_known\].*deploy.*\(node work\)/);
    expect(out).toMatch(/error \[condition_syntax\].*Use `=` for equality checks/);
    expect(out).toMatch(/error \[reachability\].*\(node lost\)/);
    expect(out).toContain('bad.dot: not valid.');

    const broken = operator('validate', 'broken.dot');
    expect(await broken.exited).toBe(1);
    expect(broken.output.stderr()).toMatch(/broken\.dot:\d+:\d+/);

    const warned = operator('validate', 'warned.dot');
    expect(await warned.exited).toBe(0);
    expect(warned.output.stdout()).toMatch(/warning \[prompt_on_llm_nodes\]/);
    const strict = operator('validate', 'warned.dot', '--strict');
    expect(await strict.exited).toBe(1);
  });

  it('runs a pipeline: the agent plans, the gate is answered on stdin, the check runs, the final context is printed', async () => {
    setUp({ 'task.dot': task });
    cli.server.setDefault((request) => {
      const text = JSON.stringify(request.body.messages);
      if (text.includes('Plan how to Write the release notes')) return { text: '1. write NOTES.md' };
      if (text.includes('tool_result')) return { text: 'Wrote NOTES.md.' };
      return { toolCalls: [{ name: 'write_file', arguments: { path: 'NOTES.md', content: '# Notes\n' } }] };
    });
    const run = operator('run', 'task.dot');
    await run.output.waitFor('Go on with the plan?');
    expect(run.output.stdout()).toMatch(/1\) go\n {2}2\) stop/);
    run.send('1');
    expect(await run.exited).toBe(0);
    const out = run.output.stdout();
    expect(out).toMatch(/Run [0-9a-f]{6} of task started\./);
    for (const step of ['> plan', '> approve', '> write', '> check', '> done']) expect(out).toContain(step);
    expect(out).toContain('Final context:');
    expect(out).toContain('check.output: notes present');
    expect(out).toContain('human.answer: go');
  });

  it("reads a step's declared outputs with a structured call through the real SDK, and routes on them", async () => {
    setUp({
      'outputs.dot': `digraph outputs {
        start [shape=Mdiamond]
        review [prompt="Review the change" outputs="approved:boolean, severity:low|high"]
        merge [type="tool" tool_command="echo merged"]
        rework [type="tool" tool_command="echo reworked"]
        done [shape=Msquare]
        start -> review
        review -> merge [condition="approved = true"]
        review -> rework [condition="approved = false"]
        merge -> done
        rework -> done
      }`,
    });
    cli.server.setDefault((request) => {
      if (request.body.tool_choice?.name === 'step_outcome') return { toolCalls: [{ name: 'step_outcome', arguments: { outcome: 'success', reason: 'the reviewer approved', approved: true, severity: 'low' } }] };
      return { text: 'Looks good to me, approve.' };
    });
    const run = operator('run', 'outputs.dot');
    expect(await run.exited).toBe(0);
    const out = run.output.stdout();
    expect(out).toContain('> merge');
    expect(out).not.toContain('> rework');
    expect(out).toContain('approved: true');
    expect(out).toContain('severity: low');
    const structured = cli.server.requests.find((request) => request.body.tool_choice?.name === 'step_outcome')!;
    expect(JSON.stringify(structured.body.messages)).toContain('Looks good to me, approve.');
  });

  it("holds a run to its cap (budgets.pipelineRun.run), reading a step's outputs included: the call that would pass it is refused and the run fails saying so", async () => {
    setUp({ 'review.dot': 'digraph review {\n  start [shape=Mdiamond]\n  review [prompt="Review the change" outputs="approved:boolean"]\n  done [shape=Msquare]\n  start -> review -> done\n}\n' });
    writeFileSync(join(cli.home, 'operator.json'), JSON.stringify({ budgets: { pipelineRun: { run: 0.7 } } }));
    // The review is billed $0.315 (100,000 input and 1,000 output tokens of claude-sonnet-4-6); reading
    // its outputs would reserve about $0.48 more (its 32,000 output tokens), past $0.70.
    cli.server.setDefault({ text: 'Looks good to me, approve.', usage: { input: 100_000, output: 1_000 } });
    const run = operator('run', 'review.dot');
    expect(await run.exited).toBe(1);
    expect(run.output.stdout()).toMatch(/Run [0-9a-f]{6} failed: Not answered: this pipeline run's spending cap of \$0\.7000 is reached \(\$0\.3150 spent, \$0\.00 in calls under way\)\.\n/);
    expect(cli.server.requests).toHaveLength(1);
  });

  it('stops at a gate on Ctrl+C, lists the run, and resumes it where it stopped', async () => {
    setUp({ 'task.dot': task });
    cli.server.setDefault({ text: 'fine' });
    const first = operator('run', 'task.dot');
    await first.output.waitFor('Go on with the plan?');
    first.child.kill('SIGINT');
    expect(await first.exited).toBe(1);
    const id = /Run ([0-9a-f]{6}) stopped at approve; go on with: operator pipeline resume \1/.exec(first.output.stdout())?.[1];
    expect(id, first.output.stdout()).toBeDefined();

    const list = operator('list');
    expect(await list.exited).toBe(0);
    expect(list.output.stdout()).toMatch(new RegExp(`${id}  task  stopped at approve`));

    const resumed = operator('resume', id!);
    await resumed.output.waitFor('Go on with the plan?');
    expect(resumed.output.stdout()).toContain('approve was running when the run stopped: it runs again.');
    resumed.send('stop');
    expect(await resumed.exited).toBe(0);
    expect(resumed.output.stdout()).toContain(`Run ${id} finished.`);
    const again = operator('resume', id!);
    expect(await again.exited).toBe(1);
    expect(again.output.stderr()).toContain(`Run ${id} already finished.`);
  });
});
