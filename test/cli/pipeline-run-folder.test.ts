/**
 * The run folder on disk, as `operator pipeline` leaves it: the manifest and each step's prompt,
 * response and status (tokens and cost from the model's usage), private to the owner, no secret
 * in it; a run killed at its gate shows where it stopped; `show` reads it back; the oldest folders
 * past `pipelines.keepRuns` are removed, and 0 keeps none; `--verbose` tells each step's events.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fakeAnthropicKey } from '../helpers/fake-model-env.ts';
import { usePipelineCli } from '../helpers/pipeline-cli.ts';

const cli = usePipelineCli('operator-run-folder-');

/** A token-shaped secret the model's answer repeats: it must not reach the disk. */
const githubToken = `ghp_${'a1B2c3D4e5'.repeat(4)}`;

const setUp = (files: Record<string, string>, config?: unknown) => cli.setUp(files, config);
const operator = (...args: string[]) => cli.operator(args);

/** Resolves once `done()` holds (asked every 10 ms), or rejects after 15 s saying `what` never came. */
async function waitUntil(what: string, done: () => boolean): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`${what} never came`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

const runIdOf = (out: string) => /Run ([0-9a-f]{6}) of \w+ started\./.exec(out)?.[1];
const readJson = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
const mode = (path: string) => statSync(path).mode & 0o777;

const review = `digraph review {
  goal="Review the change"
  start [shape=Mdiamond]
  draft [prompt="Draft a review of {goal}"]
  check [type="tool" tool_command="echo checked" auto_status=true]
  done [shape=Msquare]
  start -> draft -> check -> done
}`;

describe('the run folder', () => {
  it('holds the manifest and each step\'s prompt, response and status, private, with no secret in it; show reads it back', async () => {
    setUp({ 'review.dot': review });
    cli.server.setDefault({ text: `Reviewed. The token ${githubToken} should be rotated.`, usage: { input: 100_000, output: 1_000 } });
    // The goal carries the model key itself: what the model saw is kept, never a credential.
    const run = operator('run', 'review.dot', '--goal', `the change that uses ${fakeAnthropicKey}-0123456789`);
    expect(await run.exited, run.output.stderr()).toBe(0);
    const id = runIdOf(run.output.stdout())!;
    const folder = join(cli.home, 'runs', id);

    const manifest = readJson(join(folder, 'manifest.json'));
    expect(manifest).toMatchObject({ id, graph: 'review', status: 'finished', model: 'claude-sonnet-4-6', provider: 'anthropic', nodes: ['start', 'draft', 'check', 'done'] });
    expect(manifest.file).toBe(join(cli.workspace, 'review.dot'));
    // claude-sonnet-4-6: 100,000 input tokens at $3 and 1,000 output at $15 a million.
    expect(manifest.cost).toBeCloseTo(0.315, 6);
    expect(manifest.tokens).toEqual({ input: 100_000, output: 1_000, cacheRead: 0, cacheWrite: 0 });
    expect(Date.parse(String(manifest.endedAt))).toBeGreaterThanOrEqual(Date.parse(String(manifest.startedAt)));

    const prompt = readFileSync(join(folder, 'draft', 'prompt.md'), 'utf8');
    expect(prompt).toContain('Draft a review of the change that uses');
    expect(prompt).toBe(JSON.parse(cli.server.requests[0]!.rawBody).messages.at(-1).content.find((part: { type: string }) => part.type === 'text').text.replaceAll(fakeAnthropicKey, '[REDACTED]'));
    const response = readFileSync(join(folder, 'draft', 'response.md'), 'utf8');
    expect(response).toBe('Reviewed. The token [REDACTED] should be rotated.');
    expect(readJson(join(folder, 'draft', 'status.json'))).toMatchObject({ node: 'draft', outcome: 'success', attempts: 1, visit: 1, tokens: { input: 100_000, output: 1_000 }, cost: expect.closeTo(0.315, 6) });
    // auto_status: the engine's note for a step whose handler gave none, on disk; none without it.
    expect(readJson(join(folder, 'check', 'status.json'))).toMatchObject({ outcome: 'success', attempts: 1, cost: 0, notes: 'auto status: check ended success after 1 attempt' });
    expect(readJson(join(folder, 'draft', 'status.json'))).not.toHaveProperty('notes');
    expect(existsSync(join(folder, 'check', 'prompt.md'))).toBe(false);

    for (const file of readdirSync(folder, { recursive: true, withFileTypes: true })) {
      const path = join(file.parentPath, file.name);
      expect(mode(path), path).toBe(file.isDirectory() ? 0o700 : 0o600);
      const text = file.isFile() ? readFileSync(path, 'utf8') : '';
      expect(text).not.toContain(fakeAnthropicKey);
      expect(text).not.toContain(githubToken);
    }
    expect(mode(join(cli.home, 'runs'))).toBe(0o700);
    expect(mode(folder)).toBe(0o700);

    const show = operator('show', id);
    expect(await show.exited).toBe(0);
    const shown = show.output.stdout();
    expect(shown).toContain(`Run ${id} of review: finished`);
    expect(shown).toContain('model: anthropic:claude-sonnet-4-6; 100,000 in / 1,000 out; $0.3150');
    expect(shown).toMatch(/ {4}draft +success +1 attempt +\d+\.\d s +100,000 in \/ 1,000 out +\$0\.3150/);
    expect(shown).toContain(`folder: ${folder}`);
  });

  it('shows where a killed run stopped: the manifest and the gate still running', async () => {
    setUp({ 'gated.dot': 'digraph gated {\n  start [shape=Mdiamond]\n  plan [prompt="Plan it"]\n  approve [type="wait.human" label="Go on?"]\n  done [shape=Msquare]\n  start -> plan -> approve\n  approve -> done [label="yes"]\n  approve -> plan [label="no"]\n}\n' });
    const run = operator('run', 'gated.dot');
    await run.output.waitFor('Go on?');
    const id = runIdOf(run.output.stdout())!;
    const folder = join(cli.home, 'runs', id);
    // The folder's writes go on beside the run, each file's apart from the others': the plan's
    // last status and the gate's own are there a moment after the gate asks, in either order.
    const planStatus = join(folder, 'plan', 'status.json');
    const gateStatus = join(folder, 'approve', 'status.json');
    await waitUntil("the plan's success and the gate's status on disk", () => existsSync(gateStatus) && existsSync(planStatus) && readJson(planStatus).outcome === 'success');
    await run.kill();
    // The manifest lists the steps once the run ends: until then the steps' own files say where it is.
    expect(readJson(join(folder, 'manifest.json'))).toMatchObject({ id, status: 'running' });
    expect(readdirSync(folder).sort()).toEqual(['approve', 'manifest.json', 'plan', 'start']);
    expect(readJson(join(folder, 'plan', 'status.json'))).toMatchObject({ outcome: 'success' });
    expect(readJson(join(folder, 'approve', 'status.json'))).toMatchObject({ outcome: 'running', attempts: 1 });
    expect(readdirSync(folder).filter((name) => name.endsWith('.tmp'))).toEqual([]);

    const show = operator('show', id);
    expect(await show.exited).toBe(0);
    expect(show.output.stdout()).toContain(`Run ${id} of gated: running`);
    expect(show.output.stdout()).toMatch(/ {4}start +success[^\n]*\n {4}plan +success[^\n]*\n {4}approve +running +1 attempt/);
  });

  it('keeps the latest pipelines.keepRuns folders, and none with 0', async () => {
    setUp({ 'review.dot': review }, { pipelines: { keepRuns: 2 } });
    const ids: string[] = [];
    for (let round = 0; round < 3; round++) {
      const run = operator('run', 'review.dot');
      expect(await run.exited).toBe(0);
      ids.push(runIdOf(run.output.stdout())!);
    }
    expect(readdirSync(join(cli.home, 'runs')).sort()).toEqual(ids.slice(1).sort());
    const gone = operator('show', ids[0]!);
    expect(await gone.exited).toBe(1);
    expect(gone.output.stderr()).toContain(`No run folder for ${ids[0]}: no such run, or it was removed (pipelines.keepRuns keeps the latest ones).`);

    writeFileSync(join(cli.home, 'operator.json'), JSON.stringify({ pipelines: { keepRuns: 0 } }));
    const unkept = operator('run', 'review.dot');
    expect(await unkept.exited).toBe(0);
    expect(readdirSync(join(cli.home, 'runs')).sort()).toEqual(ids.slice(1).sort());
  });

  it('refuses to show what is not a run id, and says so of a manifest it cannot read', async () => {
    setUp({});
    const bad = operator('show', '../../etc');
    expect(await bad.exited).toBe(1);
    expect(bad.output.stderr()).toContain('"../../etc" is not a run id');
    mkdirSync(join(cli.home, 'runs', 'abc123'), { recursive: true });
    writeFileSync(join(cli.home, 'runs', 'abc123', 'manifest.json'), '{"id": "abc1');
    const torn = operator('show', 'abc123');
    expect(await torn.exited).toBe(1);
    expect(torn.output.stderr()).toMatch(/The manifest of run abc123 cannot be read: .*JSON/);
  });

  it('runs on when its folder cannot be made, saying so', async () => {
    setUp({ 'review.dot': review });
    // A file where the runs' folder should be.
    writeFileSync(join(cli.home, 'runs'), 'not a folder');
    const run = operator('run', 'review.dot');
    expect(await run.exited).toBe(0);
    expect(run.output.stdout()).toContain('Final context:');
    expect(run.output.stderr()).toMatch(/operator pipeline: warning: the run folder could not be made: .*(EEXIST|ENOTDIR)/);
  });

  it('--verbose tells each step\'s events as they happen', async () => {
    setUp({ 'review.dot': review });
    cli.server.setDefault({ text: 'Reviewed.', usage: { input: 2_000, output: 100 } });
    const run = operator('run', 'review.dot', '--verbose');
    expect(await run.exited, run.output.stderr()).toBe(0);
    const out = run.output.stdout();
    expect(out).toContain('  checkpoint: draft begins');
    expect(out).toMatch(/ {2}asked \([\d,]+ characters\): Draft a review of Review the change/);
    expect(out).toMatch(/ {2}success in \d+\.\d s; 2,000 tokens in, 100 out, \$0\.0075/);
    expect(out).toContain('  -> check [unconditional]');
    const quiet = operator('run', 'review.dot');
    expect(await quiet.exited).toBe(0);
    expect(quiet.output.stdout()).not.toContain('checkpoint:');
  });
});
