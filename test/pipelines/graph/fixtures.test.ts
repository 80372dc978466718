import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { outgoingEdges, parsePipeline } from '../../../src/pipelines/graph/parse.ts';
import { applyStylesheet, parseStylesheet } from '../../../src/pipelines/graph/stylesheet.ts';
import { formatFinding, hasErrors, validatePipeline } from '../../../src/pipelines/graph/validate.ts';

const fixture = (name: string) => {
  const file = fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
  return parsePipeline(readFileSync(file, 'utf8'), `fixtures/${name}`);
};

describe('fixture: plan -> approve -> implement -> test loop', () => {
  const pipeline = fixture('plan-implement-test.dot');

  it('validates clean', () => {
    expect(validatePipeline(pipeline)).toEqual([]);
  });

  it('reads the graph attributes', () => {
    expect(pipeline).toMatchObject({ name: 'plan_implement_test', goal: 'Add a --dry-run flag to the deploy script', defaultMaxRetry: 3, retryTarget: 'plan', defaultFidelity: 'compact', startNode: 'start' });
  });

  it('has its steps with their handlers', () => {
    const handlers = Object.fromEntries([...pipeline.nodes.values()].map((node) => [node.name, node.handlerType]));
    expect(handlers).toEqual({ start: 'start', plan: 'codergen', approve: 'wait.human', implement: 'codergen', test: 'tool', done: 'exit' });
    expect(pipeline.nodes.get('implement')).toMatchObject({ goalGate: true, maxRetries: 2, prompt: 'Carry out the plan:\n{plan}\n\nLast test failure, if any:\n{last_error}' });
    expect(pipeline.nodes.get('test')!.attributes['tool_command']).toBe('npm test --silent');
  });

  it('gives the gate one edge per answer, and the test step success first', () => {
    expect(outgoingEdges(pipeline, 'approve').map((edge) => [edge.label, edge.target, edge.loopRestart])).toEqual([
      ['Stop', 'done', false],
      ['Go', 'implement', false],
      ['Change', 'plan', true],
    ]);
    expect(outgoingEdges(pipeline, 'test').map((edge) => [edge.target, edge.condition, edge.fidelity])).toEqual([
      ['done', 'outcome = success', undefined],
      ['implement', 'outcome = fail', 'full'],
    ]);
  });

  it('styles its nodes from the stylesheet, their own attributes first', () => {
    const sheet = parseStylesheet(pipeline.modelStylesheet!);
    const styled = (name: string) => applyStylesheet(sheet, pipeline.nodes.get(name)!);
    expect(styled('implement')).toMatchObject({ model: 'claude-sonnet-4-5', reasoningEffort: 'medium' });
    expect(styled('plan')).toMatchObject({ model: 'claude-opus-4-6', reasoningEffort: 'high' });
    expect(styled('test')).toMatchObject({ timeout: 300, maxRetries: 1 });
  });
});

describe('fixture: one of every mistake', () => {
  const pipeline = fixture('every-error.dot');
  const findings = validatePipeline(pipeline);

  it('reports every rule, each at its line', () => {
    expect(findings.map((finding) => `${finding.location?.line}: ${finding.level} ${finding.rule}`)).toEqual([
      '10: error start_node',
      '28: error start_no_incoming',
      '17: warning dead_end',
      '18: warning dead_end',
      '20: warning dead_end',
      '19: error exit_no_outgoing',
      '12: error type_known',
      '13: error required_attributes',
      '24: error edge_target_exists',
      '26: error condition_syntax',
      '18: error reachability',
      '15: warning cycles',
      '11: warning retry_target_exists',
      '14: warning goal_gate_has_retry',
      '17: warning prompt_on_llm_nodes',
      '7: error stylesheet_syntax',
      '6: warning fidelity_valid',
      '27: warning fidelity_valid',
    ]);
    expect(hasErrors(findings)).toBe(true);
  });

  it('prints them for the terminal with their fixes', () => {
    const lines = findings.map((finding) => formatFinding(finding, pipeline.file));
    expect(lines).toContain('fixtures/every-error.dot:12:3: error [type_known] node "review" has the type "wait.humen", which no handler runs (node review); fix: did you mean type="wait.human"?');
    expect(lines).toContain('fixtures/every-error.dot:24:3: error [edge_target_exists] edge implement -> tset: no node "tset" is declared (a name that appears only in edges is most often a typo) (edge implement -> tset); fix: did you mean "test"?');
    expect(lines).toContain('fixtures/every-error.dot:11:3: warning [retry_target_exists] node "implement": retry_target "implemnt" is not a node (node implement); fix: did you mean "implement"?');
  });
});
