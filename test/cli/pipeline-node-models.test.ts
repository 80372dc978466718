/**
 * A node's model settings where they take effect: in the model requests the fake server records.
 * `temperature`, `max_tokens`, `provider` and `model` from the node's attributes and from the
 * stylesheet; a provider with no model gets that provider's default; a temperature a model is not
 * sent said at the start; `--provider` and `--model` for nodes that name none; an unknown provider
 * refused at validation.
 */
import { describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../fakes/fake-model-server.ts';
import { usePipelineCli } from '../helpers/pipeline-cli.ts';

const cli = usePipelineCli('operator-pipeline-models-');

function operator(files: Record<string, string>, ...args: string[]) {
  cli.setUp(files);
  return cli.operator(args, { OPENAI_API_KEY: 'sk-openai-test', OPENAI_BASE_URL: cli.server.openaiBaseURL, GEMINI_API_KEY: 'gemini-test', GEMINI_BASE_URL: cli.server.geminiBaseURL });
}

/** The request whose messages hold `step`'s prompt. */
function requestOf(step: string): RecordedRequest {
  const found = cli.server.requests.find((request) => JSON.stringify(request.body.messages).includes(`step \\"${step}\\"`));
  expect(found, `no request for ${step}`).toBeDefined();
  return found!;
}

describe("a pipeline node's model settings", () => {
  it('send its temperature, max_tokens, provider and model (attributes and stylesheet) in its model request', async () => {
    const run = operator(
      {
        'knobs.dot': `digraph knobs {
          model_stylesheet=".cold { provider: openai; model: gpt-4.1; temperature: 0.2; max_tokens: 700 }"
          start [shape=Mdiamond]
          draft [prompt="Draft it" provider="openai" model="gpt-4.1" temperature=0.7 max_tokens=900]
          polish [class="cold" prompt="Polish it"]
          review [prompt="Review it" max_tokens=1200 temperature=0.5]
          second [prompt="A second opinion" provider="gemini" temperature=0.3]
          think [prompt="Think it over" provider="openai" model="o3" temperature=0.4]
          plain [prompt="Say it plainly"]
          done [shape=Msquare]
          start -> draft -> polish -> review -> second -> think -> plain -> done
        }`,
      },
      'run',
      'knobs.dot',
    );
    expect(await run.exited, run.output.stderr()).toBe(0);
    const draft = requestOf('draft');
    expect(draft.protocol).toBe('openai');
    expect(draft.body).toMatchObject({ model: 'gpt-4.1', temperature: 0.7, max_completion_tokens: 900 });
    expect(requestOf('polish').body).toMatchObject({ model: 'gpt-4.1', temperature: 0.2, max_completion_tokens: 700 });
    const review = requestOf('review');
    expect(review.protocol).toBe('anthropic');
    expect(review.body).toMatchObject({ model: 'claude-sonnet-4-6', max_tokens: 1200 });
    // A temperature the model is not sent is said at the start, not silently dropped.
    expect(review.body).not.toHaveProperty('temperature');
    expect(requestOf('think').body).toMatchObject({ model: 'o3' });
    expect(requestOf('think').body).not.toHaveProperty('temperature');
    // Gemini's reasoning models take one.
    expect(requestOf('second').body).toMatchObject({ temperature: 0.3 });
    const warnings = run.output.stderr().split('\n').filter((line) => line.includes('warning'));
    expect(warnings).toEqual([
      'operator pipeline: warning: step "review": temperature is not sent to Anthropic models (claude-sonnet-4-6): the API version operator speaks has no sampling parameters',
      'operator pipeline: warning: step "think": temperature is not sent to o3, a reasoning model (it refuses one)',
    ]);
    // A provider and no model: that provider's default model, at its endpoint.
    const second = requestOf('second');
    expect(second.path).toContain('/v1beta/openai/');
    expect(second.body.model).toBe('gemini-2.5-pro');
    // A node that sets nothing sends nothing of the kind: the provider's defaults hold.
    const plain = requestOf('plain');
    expect(plain.body.model).toBe('claude-sonnet-4-6');
    expect(plain.body).not.toHaveProperty('temperature');
    expect(plain.body.max_tokens).not.toBe(1200);
  });

  it('--provider and --model are the settings of nodes that name none; a node\'s own win', async () => {
    const run = operator(
      { 'two.dot': 'digraph two {\n  start [shape=Mdiamond]\n  a [prompt="First"]\n  b [prompt="Second" provider="anthropic" model="claude-haiku-4-5"]\n  done [shape=Msquare]\n  start -> a -> b -> done\n}\n' },
      'run',
      'two.dot',
      '--provider',
      'openai',
      '--model',
      'gpt-4.1',
    );
    expect(await run.exited, run.output.stderr()).toBe(0);
    expect(requestOf('a')).toMatchObject({ protocol: 'openai', body: { model: 'gpt-4.1' } });
    expect(requestOf('b')).toMatchObject({ protocol: 'anthropic', body: { model: 'claude-haiku-4-5' } });
  });

  it('a resumed run keeps its --provider and --model', async () => {
    const first = operator(
      { 'gated.dot': 'digraph gated {\n  start [shape=Mdiamond]\n  ask [type="wait.human" label="Go on?"]\n  after [prompt="After the gate"]\n  done [shape=Msquare]\n  start -> ask -> after -> done\n}\n' },
      'run',
      'gated.dot',
      '--provider',
      'openai',
      '--model',
      'gpt-4.1',
    );
    await first.output.waitFor('Go on?');
    first.child.kill('SIGINT');
    expect(await first.exited).toBe(1);
    const id = /operator pipeline resume ([0-9a-f]{6})/.exec(first.output.stdout())![1]!;
    const resumed = cli.operator(['resume', id], { OPENAI_API_KEY: 'sk-openai-test', OPENAI_BASE_URL: cli.server.openaiBaseURL });
    await resumed.output.waitFor('Go on?');
    resumed.send('yes');
    expect(await resumed.exited, resumed.output.stderr()).toBe(0);
    expect(requestOf('after')).toMatchObject({ protocol: 'openai', body: { model: 'gpt-4.1' } });
  });

  it('refuses a provider nobody talks to, on a node or in the stylesheet, before any call', async () => {
    const run = operator(
      { 'bad.dot': 'digraph bad {\n  model_stylesheet="* { provider: mistral }"\n  start [shape=Mdiamond]\n  a [prompt="First" provider="opnai"]\n  done [shape=Msquare]\n  start -> a -> done\n}\n' },
      'run',
      'bad.dot',
    );
    expect(await run.exited).toBe(1);
    const said = run.output.stderr();
    expect(said).toMatch(/bad\.dot:4:\d+: error \[provider_known\] node "a" provider: "opnai" is not a provider operator talks to \(anthropic, openai, gemini\) \(node a\); fix: did you mean "openai"\?/);
    expect(said).toContain('model_stylesheet provider: "mistral" is not a provider');
    expect(cli.server.requests).toHaveLength(0);
  });

  it('refuses an unknown --provider as bad usage', async () => {
    const run = operator({ 'one.dot': 'digraph one {\n  start [shape=Mdiamond]\n  a [prompt="x"]\n  done [shape=Msquare]\n  start -> a -> done\n}\n' }, 'run', 'one.dot', '--provider', 'mistral');
    expect(await run.exited).toBe(2);
    expect(run.output.stderr()).toContain('--provider must be one of anthropic, openai, gemini, not "mistral"');
    expect(cli.server.requests).toHaveLength(0);
  });
});
