import { describe, expect, it } from 'vitest';
import { failureRoute } from '../../../src/pipelines/routing/select-edge.ts';
import type { EdgeConditionFailure } from '../../../src/pipelines/routing/select-edge.ts';
import type { Pipeline, PipelineNode } from '../../../src/pipelines/types.ts';
import { context, edge, node, pipeline } from './pipeline-fixtures.ts';

const targets = ['fix', 'fallback', 'graph_retry', 'graph_fallback'].map((name) => node(name));

function failing(fields: Partial<PipelineNode> = {}): PipelineNode {
  return node('a', fields);
}

function graph(fields: Partial<Pipeline> = {}, failed: PipelineNode = failing()): Pipeline {
  return pipeline([edge('a', 'next'), edge('a', 'on_fail', { condition: 'outcome = fail && attempts = 3' })], fields, [failed, ...targets]);
}

describe('failureRoute', () => {
  it('1: an edge whose condition tests outcome = fail and holds', () => {
    const failed = failing({ retryTarget: 'fix' });
    expect(failureRoute(graph({}, failed), failed, context({ attempts: 3 }))).toEqual({ kind: 'edge', edge: expect.objectContaining({ target: 'on_fail' }) });
  });

  it('1: several such edges: by weight, then target', () => {
    const failed = failing();
    const edges = [
      edge('a', 'zeta', { condition: 'outcome = fail' }),
      edge('a', 'beta', { condition: 'outcome = fail' }),
      edge('a', 'light', { condition: 'outcome = fail', weight: -1 }),
    ];
    const route = failureRoute(pipeline(edges, {}, [failed]), failed, context());
    expect(route).toMatchObject({ kind: 'edge', edge: { target: 'beta' } });
  });

  it('evaluates with outcome = fail whatever the context says', () => {
    const failed = failing();
    const p = pipeline([edge('a', 'x', { condition: 'outcome = fail' })], {}, [failed]);
    expect(failureRoute(p, failed, context({ outcome: 'success' }))).toMatchObject({ kind: 'edge' });
  });

  it('never takes unconditional or other conditional edges', () => {
    const failed = failing();
    const p = pipeline([edge('a', 'next', { weight: 9 }), edge('a', 'other', { condition: 'outcome != success' })], {}, [failed]);
    expect(failureRoute(p, failed, context())).toBeUndefined();
  });

  it('2-5: node retry_target, node fallback, graph retry_target, graph fallback, then nothing', () => {
    const all = { retryTarget: 'graph_retry', fallbackRetryTarget: 'graph_fallback' };
    const cases: [Partial<PipelineNode>, Partial<Pipeline>, unknown][] = [
      [{ retryTarget: 'fix', fallbackRetryTarget: 'fallback' }, all, { kind: 'retry_target', target: 'fix', from: 'node' }],
      [{ fallbackRetryTarget: 'fallback' }, all, { kind: 'fallback_retry_target', target: 'fallback', from: 'node' }],
      [{}, all, { kind: 'retry_target', target: 'graph_retry', from: 'pipeline' }],
      [{}, { fallbackRetryTarget: 'graph_fallback' }, { kind: 'fallback_retry_target', target: 'graph_fallback', from: 'pipeline' }],
      [{}, {}, undefined],
    ];
    for (const [nodeFields, graphFields, expected] of cases) {
      const failed = failing(nodeFields);
      // The fail edge's condition is false here (attempts is not 3), so the targets decide.
      expect(failureRoute(graph(graphFields, failed), failed, context({ attempts: 1 }))).toEqual(expected);
    }
  });

  it('skips a target that names no node', () => {
    const failed = failing({ retryTarget: 'ghost', fallbackRetryTarget: ' fallback ' });
    expect(failureRoute(graph({}, failed), failed, context())).toEqual({ kind: 'fallback_retry_target', target: 'fallback', from: 'node' });
  });

  it('sees the preferred label, and reports an invalid fail condition', () => {
    const failed = failing({ retryTarget: 'fix' });
    const failures: EdgeConditionFailure[] = [];
    const p = pipeline(
      [edge('a', 'labelled', { condition: 'outcome = fail && preferred_label = Abort' }), edge('a', 'broken', { condition: 'outcome = fail && n >= 2' })],
      {},
      [failed, ...targets],
    );
    expect(failureRoute(p, failed, context(), { result: { preferredLabel: 'Abort' } })).toMatchObject({ kind: 'edge', edge: { target: 'labelled' } });
    expect(failureRoute(p, failed, context(), { onConditionError: (failure) => failures.push(failure) })).toMatchObject({ kind: 'retry_target', target: 'fix' });
    // The broken one is not taken, and reported (for `_condition_error`).
    expect(failures.map((failure) => [failure.edge.target, failure.error.reason])).toEqual([['broken', 'Comparison operators not supported']]);
  });
});
