import { describe, expect, it } from 'vitest';
import { PipelineSyntaxError } from '../../../src/pipelines/graph/errors.ts';
import { incomingEdges, outgoingEdges, parsePipeline } from '../../../src/pipelines/graph/parse.ts';
import type { Pipeline, PipelineNode } from '../../../src/pipelines/types.ts';

const node = (pipeline: Pipeline, name: string): PipelineNode => {
  const found = pipeline.nodes.get(name);
  if (!found) throw new Error(`no node ${name}`);
  return found;
};

/** The error `parsePipeline` throws for `source`. */
function syntaxError(source: string, file?: string): PipelineSyntaxError {
  try {
    parsePipeline(source, file);
  } catch (error) {
    if (error instanceof PipelineSyntaxError) return error;
    throw error;
  }
  throw new Error('parsed without error');
}

describe('parsePipeline: the spec minimal example', () => {
  const pipeline = parsePipeline(`digraph my_pipeline {
    start [shape=Mdiamond]
    implement [type="codergen" prompt="Fix the login bug"]
    review [type="codergen" prompt="Review the changes"]
    done [shape=Msquare]

    start -> implement
    implement -> review
    review -> done [condition="review_passed = true"]
    review -> implement [condition="review_passed = false" weight=2]
}`);

  it('has its name, nodes in order, edges and start', () => {
    expect(pipeline.name).toBe('my_pipeline');
    expect([...pipeline.nodes.keys()]).toEqual(['start', 'implement', 'review', 'done']);
    expect(pipeline.startNode).toBe('start');
    expect(pipeline.edges.map((edge) => `${edge.source}->${edge.target}`)).toEqual(['start->implement', 'implement->review', 'review->done', 'review->implement']);
    expect(pipeline.edges[2]).toMatchObject({ condition: 'review_passed = true', weight: 0, label: '', loopRestart: false });
    expect(pipeline.edges[3]).toMatchObject({ condition: 'review_passed = false', weight: 2 });
  });

  it('infers handlers and roles', () => {
    expect(node(pipeline, 'start')).toMatchObject({ handlerType: 'start', isStart: true, isTerminal: false });
    expect(node(pipeline, 'implement')).toMatchObject({ handlerType: 'codergen', prompt: 'Fix the login bug', isStart: false, isTerminal: false });
    expect(node(pipeline, 'done')).toMatchObject({ handlerType: 'exit', isTerminal: true });
  });

  it('gives graph defaults', () => {
    expect(pipeline).toMatchObject({ goal: '', defaultMaxRetry: 50, attributes: {} });
    expect(pipeline.retryTarget).toBeUndefined();
    expect(pipeline.fallbackRetryTarget).toBeUndefined();
    expect(pipeline.defaultFidelity).toBeUndefined();
    expect(pipeline.modelStylesheet).toBeUndefined();
  });

  it('records where nodes and edges are', () => {
    expect(node(pipeline, 'implement').location).toEqual({ line: 3, column: 5 });
    expect(pipeline.edges[3]!.location).toEqual({ line: 10, column: 5 });
  });
});

describe('parsePipeline: node attributes (spec table)', () => {
  const pipeline = parsePipeline(`digraph g {
    a [type="tool" shape=box3d label="A step" prompt="Do {thing}" llm_model="claude-opus-4-6" llm_provider=anthropic
       temperature=0.2 max_tokens=4096 max_retries=3 allow_partial=true fidelity="summary:high" timeout=90
       goal_gate=true retry_target=b fallback_retry_target=c thread_id=t1 reasoning_effort=low auto_status=yes
       class="fast, cheap  deep" tool_command="make test"]
    b [prompt="B"]
    c [prompt="C"]
  }`);

  it('types every field', () => {
    expect(node(pipeline, 'a')).toMatchObject({
      handlerType: 'tool',
      shape: 'box3d',
      label: 'A step',
      prompt: 'Do {thing}',
      model: 'claude-opus-4-6',
      provider: 'anthropic',
      temperature: 0.2,
      maxTokens: 4096,
      maxRetries: 3,
      allowPartial: true,
      fidelity: 'summary:high',
      timeout: 90,
      goalGate: true,
      retryTarget: 'b',
      fallbackRetryTarget: 'c',
      threadId: 't1',
      reasoningEffort: 'low',
      autoStatus: true,
      classes: ['fast', 'cheap', 'deep'],
    });
  });

  it('keeps every attribute as written, for handlers', () => {
    expect(node(pipeline, 'a').attributes).toMatchObject({ tool_command: 'make test', type: 'tool', max_retries: '3' });
  });

  it('gives defaults when attributes are absent', () => {
    const b = node(pipeline, 'b');
    expect(b).toMatchObject({ handlerType: 'codergen', shape: 'box', label: '', classes: [], maxRetries: 0, allowPartial: false, goalGate: false, autoStatus: false });
    // Unset unless the file says: the spec's default of high would make every step think.
    expect(b!.reasoningEffort).toBeUndefined();
    for (const field of ['retryTarget', 'fallbackRetryTarget', 'fidelity', 'threadId', 'timeout', 'model', 'provider', 'temperature', 'maxTokens'] as const) expect(b[field]).toBeUndefined();
  });

  it('takes model and provider by their short names too', () => {
    const p = parsePipeline('digraph g { a [model="gpt-5" provider=openai] }');
    expect(node(p, 'a')).toMatchObject({ model: 'gpt-5', provider: 'openai' });
  });

  it('falls back to the label for the prompt, and to nothing', () => {
    const p = parsePipeline('digraph g { a [label="Summarize the diff"]; b [label="x" prompt=""]; c }');
    expect(node(p, 'a').prompt).toBe('Summarize the diff');
    expect(node(p, 'b').prompt).toBe('x');
    expect(node(p, 'c')).toMatchObject({ prompt: '', label: '' });
  });

  it('reads durations with units', () => {
    const p = parsePipeline('digraph g { a [timeout="1.5"]; b [timeout=30s]; c [timeout="5m"]; d [timeout="500ms"]; e [timeout="1h"] }');
    expect(['a', 'b', 'c', 'd', 'e'].map((name) => node(p, name).timeout)).toEqual([1.5, 30, 300, 0.5, 3600]);
  });

  it('reads booleans as Graphviz does', () => {
    const p = parsePipeline('digraph g { a [goal_gate=TRUE]; b [goal_gate=no]; c [goal_gate=1]; d [goal_gate=false] }');
    expect(['a', 'b', 'c', 'd'].map((name) => node(p, name).goalGate)).toEqual([true, false, true, false]);
  });
});

describe('parsePipeline: edge attributes (spec table)', () => {
  it('types every field, with defaults', () => {
    const p = parsePipeline(`digraph g {
      a; b; c
      a -> b [condition="outcome = success" weight=-3 label="Yes" fidelity=full thread_id=main loop_restart=true]
      a -> c
    }`);
    expect(p.edges[0]).toEqual({ source: 'a', target: 'b', condition: 'outcome = success', weight: -3, label: 'Yes', fidelity: 'full', threadId: 'main', loopRestart: true, location: { line: 3, column: 7 } });
    expect(p.edges[1]).toEqual({ source: 'a', target: 'c', weight: 0, label: '', loopRestart: false, location: { line: 4, column: 7 } });
  });

  it('treats a blank condition as none', () => {
    const p = parsePipeline('digraph g { a; b; a -> b [condition="  "] }');
    expect(p.edges[0]!.condition).toBeUndefined();
  });

  it('splits chains and groups into edges, each at its source', () => {
    const p = parsePipeline('digraph g {\n a; b; c; d; e\n a -> b -> c [weight=2]\n {c d} -> e\n}');
    expect(p.edges.map((edge) => `${edge.source}->${edge.target}:${edge.weight}`)).toEqual(['a->b:2', 'b->c:2', 'c->e:0', 'd->e:0']);
    expect(p.edges[1]!.location).toEqual({ line: 3, column: 7 });
  });

  it('ignores ports', () => {
    const p = parsePipeline('digraph g { a; b; a:out -> b:n }');
    expect(p.edges[0]).toMatchObject({ source: 'a', target: 'b' });
  });

  it('keeps repeated edges, and merges them in a strict digraph', () => {
    expect(parsePipeline('digraph g { a; b; a -> b; a -> b [weight=1] }').edges).toHaveLength(2);
    const strict = parsePipeline('strict digraph g { a; b; a -> b [label=x]; a -> b [weight=1] }');
    expect(strict.edges).toHaveLength(1);
    expect(strict.edges[0]).toMatchObject({ label: 'x', weight: 1 });
  });
});

describe('parsePipeline: defaults and subgraphs as DOT defines them', () => {
  it('applies node and edge defaults to what is created after them', () => {
    const p = parsePipeline(`digraph g {
      early
      node [shape=box3d, reasoning_effort=low]
      edge [weight=5]
      late
      early -> late
      edge [weight=1]
      late -> early
    }`);
    expect(node(p, 'early')).toMatchObject({ shape: 'box' });
    expect(node(p, 'early').reasoningEffort).toBeUndefined();
    expect(node(p, 'late')).toMatchObject({ shape: 'box3d', reasoningEffort: 'low' });
    expect(p.edges.map((edge) => edge.weight)).toEqual([5, 1]);
  });

  it('lets a node statement override a default', () => {
    const p = parsePipeline('digraph g { node [shape=box3d]; start [shape=Mdiamond]; work }');
    expect(node(p, 'start').shape).toBe('Mdiamond');
    expect(node(p, 'work').shape).toBe('box3d');
  });

  it('scopes defaults to their subgraph, inheriting the parent ones', () => {
    const p = parsePipeline(`digraph g {
      node [class=outer]
      subgraph cluster_fast {
        label = "Fast steps"
        node [llm_model=haiku]
        edge [weight=7]
        quick; quicker
        quick -> quicker
      }
      slow
      slow -> quick
    }`);
    expect(node(p, 'quick')).toMatchObject({ model: 'haiku', classes: ['outer'] });
    expect(node(p, 'slow').model).toBeUndefined();
    expect(node(p, 'slow').classes).toEqual(['outer']);
    expect(p.edges.map((edge) => edge.weight)).toEqual([7, 0]);
    // A subgraph's own graph attributes do not configure the pipeline.
    expect(p.attributes['label']).toBeUndefined();
  });

  it('merges repeated node statements', () => {
    const p = parsePipeline('digraph g { a [prompt="one" max_retries=1]; a [max_retries=2] }');
    expect(node(p, 'a')).toMatchObject({ prompt: 'one', maxRetries: 2 });
  });

  it('leaves out names only edges mention (validation reports them)', () => {
    const p = parsePipeline('digraph g {\n a -> b\n b [prompt=x]\n}');
    expect([...p.nodes.keys()]).toEqual(['b']);
    expect(p.edges).toHaveLength(1);
    expect(node(p, 'b').location).toEqual({ line: 3, column: 2 });
  });
});

describe('parsePipeline: graph attributes', () => {
  it('reads every one, from both forms', () => {
    const p = parsePipeline(`digraph g {
      goal = "Ship \\"it\\""
      graph [default_max_retry=5, retry_target=a, fallback_retry_target=b]
      default_fidelity = "summary:low"
      model_stylesheet = "* { llm_model: x }"
      rankdir = LR
      a; b
    }`);
    expect(p).toMatchObject({
      goal: 'Ship "it"',
      defaultMaxRetry: 5,
      retryTarget: 'a',
      fallbackRetryTarget: 'b',
      defaultFidelity: 'summary:low',
      modelStylesheet: '* { llm_model: x }',
      attributes: { rankdir: 'LR', default_max_retry: '5' },
    });
    expect(p.attributeLocations?.['model_stylesheet']).toEqual({ line: 5, column: 26 });
  });

  it('names an anonymous graph after its file', () => {
    expect(parsePipeline('digraph { a }', '/x/pipelines/deploy.dot').name).toBe('deploy');
    expect(parsePipeline('digraph { a }').name).toBe('');
    expect(parsePipeline('digraph { a }', 'deploy.dot').file).toBe('deploy.dot');
  });
});

describe('parsePipeline: shape-to-handler inference', () => {
  it.each([
    ['Mdiamond', 'start'],
    ['Msquare', 'exit'],
    ['box', 'codergen'],
    ['hexagon', 'codergen'],
    ['diamond', 'codergen'],
  ])('shape=%s gives %s', (shape, handler) => {
    const p = parsePipeline(`digraph g { s [shape=Mdiamond]; n [shape=${shape}]; s -> n }`);
    expect(node(p, 'n').handlerType).toBe(handler);
  });

  it('lets `type` win over the shape', () => {
    const p = parsePipeline('digraph g { a [shape=Msquare type=codergen]; b [shape=box type="wait.human"] }');
    expect(node(p, 'a').handlerType).toBe('codergen');
    expect(node(p, 'b').handlerType).toBe('wait.human');
  });

  it('keeps an unknown type as written (validation reports it)', () => {
    expect(node(parsePipeline('digraph g { a [type="shell"] }'), 'a').handlerType).toBe('shell');
  });
});

describe('parsePipeline: start detection', () => {
  it('takes the Mdiamond node first', () => {
    const p = parsePipeline('digraph g { start; begin [shape=Mdiamond]; begin -> start }');
    expect(p.startNode).toBe('begin');
    expect(node(p, 'begin').isStart).toBe(true);
    // The node named start is not the start when an Mdiamond exists: a step like any other.
    expect(node(p, 'start')).toMatchObject({ isStart: false, handlerType: 'codergen' });
  });

  it('else the node named start, any case, which runs the start handler', () => {
    const p = parsePipeline('digraph g { START; work [prompt=x]; START -> work }');
    expect(p.startNode).toBe('START');
    expect(node(p, 'START')).toMatchObject({ isStart: true, handlerType: 'start' });
  });

  it('counts type=start as the start mark too', () => {
    const p = parsePipeline('digraph g { kickoff [type=start]; work; kickoff -> work }');
    expect(p.startNode).toBe('kickoff');
  });

  it('marks every candidate when there are several (validation reports it)', () => {
    const p = parsePipeline('digraph g { a [shape=Mdiamond]; b [shape=Mdiamond] }');
    expect(p.startNode).toBe('a');
    expect([node(p, 'a').isStart, node(p, 'b').isStart]).toEqual([true, true]);
  });

  it('is empty when there is no start', () => {
    expect(parsePipeline('digraph g { a -> b; a; b }').startNode).toBe('');
  });
});

describe('parsePipeline: terminal detection', () => {
  const p = parsePipeline(`digraph g {
    s [shape=Mdiamond]
    square [shape=Msquare]
    exit; End
    typed [type=exit]
    leaf [prompt=x]
    middle [prompt=y]
    s -> middle -> leaf
    middle -> square
    middle -> exit
    middle -> End
    middle -> typed
  }`);

  it('by shape Msquare, the exit type, the names exit and end, and no outgoing edges', () => {
    for (const name of ['square', 'exit', 'End', 'typed', 'leaf']) expect(node(p, name).isTerminal, name).toBe(true);
    expect(node(p, 'middle').isTerminal).toBe(false);
    expect(node(p, 's').isTerminal).toBe(false);
  });

  it('gives the names exit and end the exit handler, but not a plain leaf', () => {
    expect(node(p, 'exit').handlerType).toBe('exit');
    expect(node(p, 'End').handlerType).toBe('exit');
    expect(node(p, 'leaf').handlerType).toBe('codergen');
  });

  it('keeps an exit by name terminal even with outgoing edges (validation reports it)', () => {
    const q = parsePipeline('digraph g { end [prompt=x]; next [prompt=y]; end -> next }');
    expect(node(q, 'end').isTerminal).toBe(true);
  });
});

describe('parsePipeline: quoted strings and text', () => {
  it('decodes \\" everywhere and backslash-newline continuations', () => {
    const p = parsePipeline('digraph g { a [tool_command="echo \\"hi\\"", prompt="one \\\ntwo"] }');
    expect(node(p, 'a').attributes['tool_command']).toBe('echo "hi"');
    expect(node(p, 'a').prompt).toBe('one two');
  });

  it('reads \\n, \\l, \\N in labels and prompts, but leaves other attributes as written', () => {
    const p = parsePipeline('digraph g { a [label="Step \\N\\lnext" prompt="line one\\nline two \\\\ done" tool_command="printf \'a\\nb\'"] }');
    expect(node(p, 'a').label).toBe('Step a\nnext');
    expect(node(p, 'a').prompt).toBe('line one\nline two \\ done');
    expect(node(p, 'a').attributes['tool_command']).toBe("printf 'a\\nb'");
  });

  it('takes quoted names and HTML labels', () => {
    const p = parsePipeline('digraph g { "write docs" [label=<<b>Docs</b>>]; "write docs" -> "write docs" }');
    expect(node(p, 'write docs').label).toBe('<b>Docs</b>');
    expect(p.edges[0]).toMatchObject({ source: 'write docs', target: 'write docs' });
  });
});

describe('parsePipeline: syntax errors', () => {
  it('gives file, line, column and what was expected', () => {
    const error = syntaxError('digraph g {\n  a [label="x"]\n  a -> \n}', 'broken.dot');
    expect(error).toBeInstanceOf(PipelineSyntaxError);
    expect(error).toMatchObject({ file: 'broken.dot', line: 4, column: 1, found: '"}"' });
    expect(error.message).toBe('broken.dot:4:1: syntax error: expected a name or a quoted string but "}" found');
    expect(error.expected).toEqual(['a name or a quoted string']);
  });

  it('names the end of input', () => {
    const error = syntaxError('digraph g {\n  a [x=1');
    expect(error.message).toBe('2:9: syntax error: expected ",", ";", "]" or a name or a quoted string but end of input found');
  });

  it('explains a line break inside a quoted string', () => {
    const error = syntaxError('digraph g {\n  a [prompt="two\nlines"]\n}', 'p.dot');
    expect(error).toMatchObject({ line: 2, column: 17 });
    expect(error.message).toContain('p.dot:2:17: syntax error: a quoted string goes on to the next line; end the line with a backslash');
  });

  it('explains a ; after a subgraph', () => {
    expect(syntaxError('digraph g { subgraph s { a }; }').message).toContain("remove the ';' after the subgraph's closing brace");
  });

  it('refuses an undirected edge in a digraph', () => {
    expect(syntaxError('digraph g {\n a -- b\n}').message).toMatch(/^2:4: syntax error: .*->/);
  });

  it('refuses an empty file', () => {
    expect(syntaxError('', 'empty.dot').message).toMatch(/^empty\.dot:1:1: syntax error: expected .*"digraph"/);
  });
});

describe('parsePipeline: undirected graphs', () => {
  it('refuses `graph {}` with a clear message', () => {
    const error = syntaxError('// a note\ngraph deploy {\n  a -- b\n}', 'deploy.dot');
    expect(error.message).toBe('deploy.dot:2:1: the graph "deploy" is undirected (`graph`): a pipeline is a directed graph, written `digraph deploy { a -> b }`');
    expect(syntaxError('graph {}').message).toContain('undirected');
  });

  it('says to write digraph when a graph uses ->', () => {
    expect(syntaxError('graph g { a -> b }').message).toContain('a pipeline is a directed graph: write `digraph NAME { a -> b }`');
  });
});

describe('parsePipeline: attribute type errors', () => {
  it('names the node or edge, the attribute and the value, with every problem at once', () => {
    const error = syntaxError(
      `digraph g {
  a [max_retries=three, timeout=-1, goal_gate=maybe]
  b [temperature=hot, max_tokens=0, reasoning_effort=extreme, allow_partial=2, auto_status=""]
  a -> b [weight=1.5, loop_restart=sometimes]
  default_max_retry = -1
}`,
      'types.dot',
    );
    expect(error.message.split('\n')).toEqual([
      'types.dot:2:18: node "a": max_retries: expected a whole number of 0 or more, got "three"',
      'types.dot:2:33: node "a": timeout: expected a duration of more than 0, got "-1"',
      'types.dot:2:47: node "a": goal_gate: expected true or false, got "maybe"',
      'types.dot:3:18: node "b": temperature: expected a number of 0 or more, got "hot"',
      'types.dot:3:34: node "b": max_tokens: expected a whole number of 1 or more, got 0',
      'types.dot:3:54: node "b": reasoning_effort: expected low, medium or high, got "extreme"',
      'types.dot:3:77: node "b": allow_partial: expected true or false, got "2"',
      'types.dot:4:18: edge a -> b: weight: expected a whole number, got "1.5"',
      'types.dot:4:36: edge a -> b: loop_restart: expected true or false, got "sometimes"',
      'types.dot:5:23: graph attribute: default_max_retry: expected a whole number of 0 or more, got -1',
    ]);
    expect(error.problems[0]).toMatchObject({ node: 'a', attribute: 'max_retries', line: 2, column: 18 });
  });

  it('points at the default statement for an inherited bad value', () => {
    const error = syntaxError('digraph g {\n node [max_retries=lots]\n a\n}');
    expect(error.message).toBe('2:20: node "a": max_retries: expected a whole number of 0 or more, got "lots"');
  });
});

describe('outgoingEdges and incomingEdges', () => {
  const p = parsePipeline(`digraph g {
    a; b; c; d
    a -> d
    a -> c [weight=1]
    a -> b
    a -> b [weight=1]
    c -> b
  }`);

  it('sorts outgoing edges by weight descending, then target ascending', () => {
    expect(outgoingEdges(p, 'a').map((edge) => `${edge.target}:${edge.weight}`)).toEqual(['b:1', 'c:1', 'b:0', 'd:0']);
    expect(outgoingEdges(p, 'd')).toEqual([]);
  });

  it('lists incoming edges in the order written', () => {
    expect(incomingEdges(p, 'b').map((edge) => `${edge.source}:${edge.weight}`)).toEqual(['a:0', 'a:1', 'c:0']);
  });
});
