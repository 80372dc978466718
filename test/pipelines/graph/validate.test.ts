import { describe, expect, it } from 'vitest';
import { parsePipeline } from '../../../src/pipelines/graph/parse.ts';
import { formatFinding, hasErrors, validatePipeline, type ValidateOptions } from '../../../src/pipelines/graph/validate.ts';
import { validateConditionSyntax } from '../../../src/pipelines/routing/conditions.ts';
import { handlerTypes, type Pipeline, type ValidationFinding } from '../../../src/pipelines/types.ts';

/** A pipeline that passes every rule, with `extra` statements added. */
const valid = (extra = '', graph = '') => `digraph g {
  ${graph}
  start [shape=Mdiamond]
  work [prompt="Do the work"]
  done [shape=Msquare]
  start -> work -> done
  ${extra}
}`;

const validate = (dot: string, options?: ValidateOptions) => validatePipeline(parsePipeline(dot), options);

/** The findings of one rule. */
const of = (findings: readonly ValidationFinding[], rule: string) => findings.filter((finding) => finding.rule === rule);

describe('validatePipeline: a valid pipeline', () => {
  it('has no findings', () => {
    expect(validate(valid())).toEqual([]);
  });
});

describe('start_node', () => {
  it('is an error when there is no start', () => {
    const [finding] = of(validate('digraph g { work [prompt=x]; done [shape=Msquare]; work -> done }'), 'start_node');
    expect(finding).toMatchObject({ level: 'error', message: 'the pipeline has no start node (shape=Mdiamond, or a node named "start")', fix: 'add `start [shape=Mdiamond]` with an edge to the first step' });
  });

  it('says when the shape is only mis-cased', () => {
    const [finding] = of(validate('digraph g { begin [shape=MDiamond]; done [shape=Msquare]; begin -> done }'), 'start_node');
    expect(finding!.fix).toBe('write shape=Mdiamond on "begin" (shape names are case-sensitive)');
  });

  it('is an error for a second start, at the second one', () => {
    const findings = of(validate('digraph g {\n a [shape=Mdiamond]\n b [shape=Mdiamond]\n done [shape=Msquare]\n a -> done\n b -> done\n}'), 'start_node');
    expect(findings).toEqual([{ level: 'error', rule: 'start_node', message: 'more than one start node: "a" and "b"', node: 'b', location: { line: 3, column: 2 }, fix: 'keep one start node' }]);
  });

  it('is an error for a start node that does not exist', () => {
    const pipeline: Pipeline = { ...parsePipeline(valid()), startNode: 'ghost' };
    expect(of(validatePipeline(pipeline), 'start_node')).toMatchObject([{ level: 'error', message: 'the start node "ghost" is not in the pipeline' }]);
  });

  it('takes a start found by name', () => {
    expect(validate('digraph g { start; work [prompt=x]; exit; start -> work -> exit }')).toEqual([]);
  });
});

describe('start_no_incoming', () => {
  it('is an error for each edge into the start, at the edge', () => {
    const findings = of(validate(valid('work -> start [condition="outcome = fail"]')), 'start_no_incoming');
    expect(findings).toEqual([
      {
        level: 'error',
        rule: 'start_no_incoming',
        message: 'the start node "start" has an incoming edge from "work"',
        edge: { source: 'work', target: 'start' },
        location: { line: 7, column: 3 },
        fix: 'point the edge at the first step after the start instead',
      },
    ]);
  });
});

describe('terminal_node', () => {
  it('is an error when every node has outgoing edges', () => {
    const findings = validate('digraph g { start [shape=Mdiamond]; a [prompt=x]; b [prompt=y]; start -> a -> b -> a }');
    expect(of(findings, 'terminal_node')).toMatchObject([{ level: 'error', message: 'the pipeline has no exit: every node has outgoing edges, so a run can never end' }]);
  });

  it('takes a node without outgoing edges as the end (spec), with no exit marked', () => {
    expect(validate('digraph g { start [shape=Mdiamond]; a [prompt=x]; start -> a }')).toEqual([]);
  });
});

describe('dead_end (operator)', () => {
  it('warns about a node with no way on when the pipeline marks its exits', () => {
    const findings = of(validate(valid('work -> notify\n notify [prompt="Tell the team"]')), 'dead_end');
    expect(findings).toMatchObject([{ level: 'warning', node: 'notify', message: 'node "notify" has no outgoing edges, so a run would end there without reaching an exit' }]);
  });

  it('does not fire on the exits themselves', () => {
    expect(of(validate(valid('work -> exit\n exit')), 'dead_end')).toEqual([]);
  });
});

describe('exit_no_outgoing', () => {
  it('is an error for an Msquare node with outgoing edges', () => {
    const findings = of(validate(valid('done -> work')), 'exit_no_outgoing');
    expect(findings).toMatchObject([{ level: 'error', node: 'done', message: 'the exit node "done" has outgoing edges (to "work"): a run ends at an exit, so they are never taken', fix: 'remove the edges leaving "done"' }]);
  });

  it('is an error for a node named end with outgoing edges, suggesting a rename', () => {
    const findings = of(validate(valid('work -> end\n end [type=codergen prompt=x]\n end -> done')), 'exit_no_outgoing');
    expect(findings).toMatchObject([{ node: 'end', fix: 'rename "end" ("exit" and "end" are the names of exits)' }]);
  });
});

describe('type_known', () => {
  it('is an error naming the node, with the closest type', () => {
    const findings = of(validate(valid('work -> ask -> done\n ask [type="wait.humna" label="OK?"]')), 'type_known');
    expect(findings).toMatchObject([{ level: 'error', node: 'ask', message: 'node "ask" has the type "wait.humna", which no handler runs', fix: 'did you mean type="wait.human"?', location: { line: 8, column: 2 } }]);
  });

  it('lists the known types when none is close', () => {
    const [finding] = of(validate(valid('work -> x -> done\n x [type="deploy_to_production"]')), 'type_known');
    expect(finding!.fix).toBe(`use one of: ${handlerTypes.join(', ')}`);
  });

  it('takes every built-in type', () => {
    const nodes = handlerTypes.map((type, index) => `n${index} [type="${type}" prompt=p tool_command=c]`).join('\n');
    expect(of(validate(valid(nodes)), 'type_known')).toEqual([]);
  });

  it('follows knownHandlers', () => {
    const dot = valid('work -> custom -> done\n custom [type="my.handler"]');
    expect(of(validate(dot), 'type_known')).toHaveLength(1);
    expect(of(validate(dot, { knownHandlers: [...handlerTypes, 'my.handler'] }), 'type_known')).toEqual([]);
    expect(of(validate(dot, { knownHandlers: ['start', 'exit', 'my.handler'] }), 'type_known').map((finding) => finding.node)).toEqual(['work']);
  });
});

describe('required_attributes', () => {
  it('is an error for a tool node without tool_command (absent or blank)', () => {
    const findings = of(validate(valid('work -> a -> b -> done\n a [type=tool]\n b [type=tool tool_command="  "]')), 'required_attributes');
    expect(findings.map((finding) => [finding.level, finding.node, finding.message])).toEqual([
      ['error', 'a', 'node "a" (tool) has no tool_command'],
      ['error', 'b', 'node "b" (tool) has no tool_command'],
    ]);
  });

  it('is quiet when it is there', () => {
    expect(of(validate(valid('work -> t -> done\n t [type=tool tool_command="npm test"]')), 'required_attributes')).toEqual([]);
  });
});

describe('edge_target_exists', () => {
  it('is an error for a name only edges mention, with the closest declared name', () => {
    const findings = of(validate(valid('work -> wrok')), 'edge_target_exists');
    expect(findings).toEqual([
      {
        level: 'error',
        rule: 'edge_target_exists',
        message: 'edge work -> wrok: no node "wrok" is declared (a name that appears only in edges is most often a typo)',
        edge: { source: 'work', target: 'wrok' },
        location: { line: 7, column: 3 },
        fix: 'did you mean "work"?',
      },
    ]);
  });

  it('suggests declaring it when no name is close', () => {
    expect(of(validate(valid('work -> deploy_everything')), 'edge_target_exists')[0]!.fix).toBe('declare it: deploy_everything [prompt="..."]');
  });

  it('reports a missing source too, once for an edge to itself', () => {
    const pipeline = parsePipeline(valid());
    const edges = [...pipeline.edges, { source: 'ghost', target: 'ghost', label: '', weight: 0, loopRestart: false }];
    expect(of(validatePipeline({ ...pipeline, edges }), 'edge_target_exists')).toHaveLength(1);
  });
});

describe('condition_syntax', () => {
  it('is an error with the condition parser’s message, at the edge', () => {
    const findings = of(validate(valid('work -> start2 [condition="outcome == success"]\n start2 [prompt=x]\n start2 -> done')), 'condition_syntax');
    expect(findings).toEqual([
      {
        level: 'error',
        rule: 'condition_syntax',
        message: `edge work -> start2: condition "outcome == success": ${validateConditionSyntax('outcome == success')}`,
        edge: { source: 'work', target: 'start2' },
        location: { line: 7, column: 3 },
      },
    ]);
  });

  it.each(['outcome = success', 'exit_code != 0', 'context.tests_passed = true && outcome = success', 'tests_passed'])('takes %j', (condition) => {
    expect(of(validate(valid(`work -> done [condition="${condition}"]`)), 'condition_syntax')).toEqual([]);
  });

  it.each(['a < 3', 'a = 1 or b = 2', 'not a'])('refuses %j', (condition) => {
    expect(of(validate(valid(`work -> done [condition="${condition}"]`)), 'condition_syntax')).toHaveLength(1);
  });
});

describe('reachability', () => {
  it('is an error for a node the start cannot reach', () => {
    const findings = of(validate(valid('island [prompt=x]\n island -> done')), 'reachability');
    expect(findings).toMatchObject([{ level: 'error', node: 'island', message: 'node "island" cannot be reached from the start node "start"', fix: 'add an edge to "island", or remove it' }]);
  });

  it('counts retry targets as ways to get there', () => {
    expect(of(validate(valid('fixup [prompt=x]\n fixup -> done', '').replace('work [', 'work [retry_target=fixup ')), 'reachability')).toEqual([]);
    expect(of(validate(valid('fixup [prompt=x]\n fixup -> done', 'fallback_retry_target = fixup')), 'reachability')).toEqual([]);
  });

  it('says nothing more when there is no start', () => {
    expect(of(validate('digraph g { a [prompt=x]; b [prompt=y]; a -> b }'), 'reachability')).toEqual([]);
  });
});

describe('cycles', () => {
  it('is quiet for a retry loop that can reach an exit', () => {
    const dot = valid('test [type=tool tool_command=t]\n work -> test\n test -> work [condition="outcome = fail"]\n test -> done [condition="outcome = success"]');
    expect(of(validate(dot), 'cycles')).toEqual([]);
  });

  it('warns once about a cycle with no way out, naming its nodes', () => {
    const findings = of(validate(valid('work -> poll\n poll [prompt=p]\n check [prompt=c]\n poll -> check -> poll')), 'cycles');
    expect(findings).toEqual([
      {
        level: 'warning',
        rule: 'cycles',
        message: 'nodes "poll", "check" form a cycle with no way out to an exit: a run that gets there goes round until max_steps',
        node: 'poll',
        location: { line: 8, column: 2 },
        fix: 'add an edge from the cycle (with a condition, e.g. outcome = success) toward an exit',
      },
    ]);
  });

  it('warns about a node that loops to itself with no way out, not one that can leave', () => {
    expect(of(validate(valid('work -> spin\n spin [prompt=s]\n spin -> spin')), 'cycles')).toMatchObject([{ node: 'spin', message: expect.stringContaining('node "spin" loops to itself') }]);
    expect(of(validate(valid('work -> work [condition="outcome = retry"]')), 'cycles')).toEqual([]);
  });

  it('does not count a retry target as a way out', () => {
    const dot = valid('work -> a\n a [prompt=a retry_target=done]\n b [prompt=b]\n a -> b -> a');
    expect(of(validate(dot), 'cycles')).toHaveLength(1);
  });
});

describe('retry_target_exists', () => {
  it('warns about node and graph targets that are not nodes', () => {
    const dot = valid('', 'retry_target = strat\n fallback_retry_target = nowhere_at_all').replace('work [', 'work [retry_target=wrk fallback_retry_target=done ');
    const findings = of(validate(dot), 'retry_target_exists');
    expect(findings.map((finding) => [finding.level, finding.message, finding.fix, finding.node])).toEqual([
      ['warning', 'graph: retry_target "strat" is not a node', 'did you mean "start"?', undefined],
      ['warning', 'graph: fallback_retry_target "nowhere_at_all" is not a node', 'name a node of the pipeline', undefined],
      ['warning', 'node "work": retry_target "wrk" is not a node', 'did you mean "work"?', 'work'],
    ]);
    expect(findings[0]!.location).toEqual({ line: 2, column: 18 });
  });
});

describe('goal_gate_has_retry', () => {
  const gate = (attributes: string, graph = '') => of(validate(valid('', graph).replace('work [', `work [goal_gate=true ${attributes} `)), 'goal_gate_has_retry');

  it('warns about a goal gate with nowhere to go back to', () => {
    expect(gate('')).toMatchObject([{ level: 'warning', node: 'work', fix: 'add retry_target="NODE" to "work" (the step to go back to), or a graph-level retry_target' }]);
  });

  it('is satisfied by a retry or fallback target, on the node or the graph', () => {
    expect(gate('retry_target=start')).toEqual([]);
    expect(gate('fallback_retry_target=start')).toEqual([]);
    expect(gate('', 'retry_target = work')).toEqual([]);
    expect(gate('', 'fallback_retry_target = work')).toEqual([]);
  });
});

describe('prompt_on_llm_nodes', () => {
  it('warns about a codergen node with neither prompt nor label', () => {
    expect(of(validate(valid('work -> think -> done\n think')), 'prompt_on_llm_nodes')).toMatchObject([{ level: 'warning', node: 'think' }]);
  });

  it('takes a label, and does not ask other handlers', () => {
    expect(of(validate(valid('work -> think -> done\n think [label="Think it over"]')), 'prompt_on_llm_nodes')).toEqual([]);
    expect(of(validate(valid('work -> route -> done\n route [type=conditional]')), 'prompt_on_llm_nodes')).toEqual([]);
  });
});

describe('stylesheet_syntax', () => {
  it('is an error with the place in the stylesheet, at the attribute', () => {
    const findings = of(validate(valid('', 'model_stylesheet = "* { llm_model: a } .x { tmeout: 3 }"')), 'stylesheet_syntax');
    expect(findings).toEqual([
      {
        level: 'error',
        rule: 'stylesheet_syntax',
        message: expect.stringMatching(/^model_stylesheet, line 1 column 25 of the stylesheet: unknown property "tmeout"/),
        location: { line: 2, column: 22 },
      },
    ]);
  });

  it('is an error for a stylesheet with no rules', () => {
    expect(of(validate(valid('', 'model_stylesheet = "/* later */"')), 'stylesheet_syntax')[0]!.message).toContain('no rules');
  });

  it('is quiet for a good one', () => {
    expect(of(validate(valid('', 'model_stylesheet = "* { llm_model: a; timeout: 30 }"')), 'stylesheet_syntax')).toEqual([]);
  });
});

describe('fidelity_valid', () => {
  it('warns about bad modes on the graph, nodes and edges', () => {
    const dot = valid('work -> done [fidelity="summary:hi"]', 'default_fidelity = "ful"').replace('work [', 'work [fidelity=tiny ');
    const findings = of(validate(dot), 'fidelity_valid');
    expect(findings.map((finding) => [finding.level, finding.message.split(':')[0], finding.fix])).toEqual([
      ['warning', 'graph default_fidelity', 'did you mean "full"?'],
      ['warning', 'node "work" fidelity', undefined],
      ['warning', 'edge work -> done fidelity', 'did you mean "summary:high"?'],
    ]);
    expect(findings[2]!.edge).toEqual({ source: 'work', target: 'done' });
  });

  it('takes every mode, in any case', () => {
    const modes = ['full', 'truncate', 'compact', 'summary:low', 'summary:medium', 'Summary:High'];
    const dot = valid(modes.map((mode, index) => `n${index} [prompt=p fidelity="${mode}"]\n work -> n${index} -> done [fidelity="${mode}"]`).join('\n'), 'default_fidelity = full');
    expect(of(validate(dot), 'fidelity_valid')).toEqual([]);
  });
});

describe('hasErrors', () => {
  it('is true only with an error', () => {
    expect(hasErrors([])).toBe(false);
    expect(hasErrors([{ level: 'warning', rule: 'cycles', message: 'm' }, { level: 'info', rule: 'x', message: 'm' }])).toBe(false);
    expect(hasErrors([{ level: 'warning', rule: 'cycles', message: 'm' }, { level: 'error', rule: 'reachability', message: 'm' }])).toBe(true);
  });
});

describe('formatFinding', () => {
  it('prints file:line:col: level [rule] message (node X); fix', () => {
    const finding: ValidationFinding = { level: 'error', rule: 'type_known', message: 'node "x" has the type "shel"', node: 'x', location: { line: 3, column: 5 }, fix: 'did you mean type="tool"?' };
    expect(formatFinding(finding, 'deploy.dot')).toBe('deploy.dot:3:5: error [type_known] node "x" has the type "shel" (node x); fix: did you mean type="tool"?');
    expect(formatFinding(finding)).toBe('3:5: error [type_known] node "x" has the type "shel" (node x); fix: did you mean type="tool"?');
  });

  it('names an edge, and leaves out what is unknown', () => {
    expect(formatFinding({ level: 'warning', rule: 'fidelity_valid', message: 'bad', edge: { source: 'a', target: 'b' } }, 'p.dot')).toBe('p.dot: warning [fidelity_valid] bad (edge a -> b)');
    expect(formatFinding({ level: 'error', rule: 'start_node', message: 'no start' })).toBe('error [start_node] no start');
  });
});

describe('names that are also Object.prototype members', () => {
  it('treats them as any other name', () => {
    const findings = validate(valid('work -> odd -> done\n odd [type="constructor" tool_command=x]', '__proto__ = "x"'));
    expect(findings.map((finding) => finding.rule)).toEqual(['type_known']);
    expect(parsePipeline(valid('', '__proto__ = "x"')).attributes['__proto__']).toBe('x');
  });
});
