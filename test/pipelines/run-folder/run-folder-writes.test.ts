/**
 * The run folder's writes when the disk says no: a step whose files cannot be written is told at
 * the next hook (the engine turns that into `hook_failed`), and the run's end still writes the
 * manifest; a node id that is not a plain name stays inside the run's folder.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PipelineContext } from '../../../src/pipelines/engine/pipeline-context.ts';
import { parsePipeline } from '../../../src/pipelines/graph/parse.ts';
import { RunFolder } from '../../../src/pipelines/run-folder/run-folder.ts';

let root: string | undefined;
afterEach(() => {
  if (root) rmSync(root, { recursive: true, force: true });
  root = undefined;
});

const pipeline = parsePipeline('digraph p { start [shape=Mdiamond]; draft [prompt="Draft"]; "../../escape" [prompt="Out?"]; done [shape=Msquare]; start -> draft -> "../../escape" -> done }');
const step = (attempt = 1) => ({ runId: 'ab12cd', attempt });
const ended = { runId: 'ab12cd', attempt: 1, durationMs: 1, final: true };

async function open(): Promise<RunFolder> {
  root = mkdtempSync(join(tmpdir(), 'operator-run-folder-'));
  return RunFolder.open({ root, record: { id: 'ab12cd', pipeline: 'p', startedAt: Date.now() }, goal: 'g', model: 'm', provider: 'anthropic', keep: 10, env: {} });
}

describe('the run folder', () => {
  it("tells a step's write that failed at the next hook, and still ends the run's manifest", async () => {
    const folder = await open();
    // A file where the step's folder should go: its writes fail.
    writeFileSync(join(folder.directory, 'draft'), 'in the way');
    const draft = pipeline.nodes.get('draft')!;
    folder.hook.beforeNode!(draft, new PipelineContext(), step());
    folder.onEvent({ type: 'node_prompt', runId: 'ab12cd', node: 'draft', attempt: 1, prompt: 'Draft' });
    let told: unknown;
    try {
      // finish waits for every queued write, writes the manifest, then tells what failed.
      await folder.finish({ status: 'finished', endedAt: Date.now() });
    } catch (error) {
      told = error;
    }
    expect(String(told)).toMatch(/the run folder .*ab12cd could not be written: .*(EEXIST|ENOTDIR)/);
    expect(JSON.parse(readFileSync(join(folder.directory, 'manifest.json'), 'utf8'))).toMatchObject({ status: 'finished' });
  });

  it('keeps a step whose id is a path inside the run folder', async () => {
    const folder = await open();
    const escape = pipeline.nodes.get('../../escape')!;
    folder.hook.beforeNode!(escape, new PipelineContext(), step());
    folder.hook.afterNode!(escape, new PipelineContext(), { status: 'success', output: 'no' }, ended);
    await folder.finish({ status: 'finished', endedAt: Date.now() });
    expect(readdirSync(folder.directory).sort()).toEqual(['%2E%2E%2F%2E%2E%2Fescape', 'manifest.json']);
    expect(existsSync(join(root!, '..', 'escape'))).toBe(false);
    expect(readFileSync(join(folder.directory, '%2E%2E%2F%2E%2E%2Fescape', 'response.md'), 'utf8')).toBe('no');
  });
});
