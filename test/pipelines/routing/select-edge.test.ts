import { describe, expect, it } from 'vitest';
import { selectEdge, type EdgeConditionFailure } from '../../../src/pipelines/routing/select-edge.ts';
import type { PipelineEdge } from '../../../src/pipelines/types.ts';
import { context, edge, pipeline, result } from './pipeline-fixtures.ts';

function chosen(edges: PipelineEdge[], fields: Parameters<typeof result>[0] = {}, data: Record<string, unknown> = {}): [string, number] | undefined {
  const selection = selectEdge(pipeline(edges), 'a', result(fields), context(data));
  return selection && [selection.edge.target, selection.step];
}

describe('selectEdge: the five steps', () => {
  it('has nothing to choose for a node without outgoing edges', () => {
    expect(selectEdge(pipeline([edge('a', 'b')]), 'b', result(), context())).toBeUndefined();
    expect(selectEdge(pipeline([edge('a', 'b')]), 'nowhere', result(), context())).toBeUndefined();
  });

  it('step 1: a true condition wins over everything else', () => {
    const edges = [
      edge('a', 'plain', { weight: 10, label: 'Go' }),
      edge('a', 'checked', { condition: 'outcome = success' }),
    ];
    expect(chosen(edges, { preferredLabel: 'Go', suggestedNextIds: ['plain'] })).toEqual(['checked', 1]);
  });

  it('step 1: the highest weight among true conditions, ties by target ascending', () => {
    const edges = [
      edge('a', 'low', { condition: 'outcome = success', weight: 1 }),
      edge('a', 'zeta', { condition: 'ready', weight: 3 }),
      edge('a', 'alpha', { condition: 'ready', weight: 3 }),
      edge('a', 'false-but-heavy', { condition: 'outcome = fail', weight: 9 }),
    ];
    expect(chosen(edges, {}, { ready: true })).toEqual(['alpha', 1]);
  });

  it('step 1 sees outcome and preferred_label from the result before the context', () => {
    const edges = [edge('a', 'retry', { condition: 'outcome = retry' }), edge('a', 'yes', { condition: 'preferred_label = Yes' })];
    expect(chosen(edges, { status: 'retry' }, { outcome: 'success' })).toEqual(['retry', 1]);
    expect(chosen(edges, { preferredLabel: 'Yes' })).toEqual(['yes', 1]);
  });

  it('the spec example: review_passed routes, weight breaks no tie that is not there', () => {
    const edges = [
      edge('a', 'done', { condition: 'review_passed = true' }),
      edge('a', 'implement', { condition: 'review_passed = false', weight: 2 }),
    ];
    expect(chosen(edges, {}, { review_passed: true })).toEqual(['done', 1]);
    expect(chosen(edges, {}, { review_passed: false })).toEqual(['implement', 1]);
  });

  it('step 2: the preferred label, trimmed and case-insensitive', () => {
    const edges = [edge('a', 'ship', { label: 'Approve' }), edge('a', 'fix', { label: 'Request changes', weight: 5 })];
    expect(chosen(edges, { preferredLabel: '  approve ' })).toEqual(['ship', 2]);
    expect(chosen(edges, { preferredLabel: 'REQUEST   CHANGES' })).toEqual(['fix', 2]);
  });

  it('step 2 considers edges whose condition was false', () => {
    const edges = [edge('a', 'gated', { label: 'Deploy', condition: 'approved' }), edge('a', 'other', { weight: 1 })];
    expect(chosen(edges, { preferredLabel: 'Deploy' })).toEqual(['gated', 2]);
  });

  it('step 2: an unmatched label goes on to the next steps', () => {
    const edges = [edge('a', 'b', { label: 'Yes' }), edge('a', 'c', { label: 'No' })];
    expect(chosen(edges, { preferredLabel: 'Maybe', suggestedNextIds: ['c'] })).toEqual(['c', 3]);
    expect(chosen(edges, { preferredLabel: '' })).toEqual(['b', 4]);
  });

  it('step 3: the first suggested id that an edge leads to', () => {
    const edges = [edge('a', 'b', { weight: 5 }), edge('a', 'c'), edge('a', 'd')];
    expect(chosen(edges, { suggestedNextIds: ['x', 'd', 'c'] })).toEqual(['d', 3]);
    expect(chosen(edges, { suggestedNextIds: ['x'] })).toEqual(['b', 4]);
  });

  it('step 4: unconditional edges by weight, then target ascending', () => {
    expect(chosen([edge('a', 'b', { weight: 1 }), edge('a', 'c', { weight: 2 })])).toEqual(['c', 4]);
    expect(chosen([edge('a', 'zeta'), edge('a', 'Zeta'), edge('a', 'alpha')])).toEqual(['Zeta', 4]);
    expect(chosen([edge('a', 'b', { weight: -1 }), edge('a', 'c')])).toEqual(['c', 4]);
  });

  it('step 4 skips conditional edges whose condition is false; a blank condition is unconditional', () => {
    const edges = [edge('a', 'heavy', { condition: 'nope', weight: 9 }), edge('a', 'blank', { condition: '  ' }), edge('a', 'plain')];
    expect(chosen(edges)).toEqual(['blank', 4]);
  });

  it('step 5: when every condition is false, any edge by weight then target', () => {
    const edges = [
      edge('a', 'done', { condition: 'review_passed = true' }),
      edge('a', 'implement', { condition: 'review_passed = false', weight: 2 }),
    ];
    expect(chosen(edges, {}, {})).toEqual(['implement', 5]);
    expect(chosen([edge('a', 'y', { condition: 'x' }), edge('a', 'b', { condition: 'x' })])).toEqual(['b', 5]);
  });

  it('only considers the edges of the node', () => {
    const edges = [edge('other', 'z', { condition: 'outcome = success', weight: 9 }), edge('a', 'b')];
    expect(chosen(edges)).toEqual(['b', 4]);
  });

  it('keeps declaration order between edges equal in weight and target', () => {
    const first = edge('a', 'b', { label: 'first' });
    const second = edge('a', 'b', { label: 'second' });
    expect(selectEdge(pipeline([first, second]), 'a', result(), context())?.edge).toBe(first);
  });
});

describe('selectEdge: accelerator labels', () => {
  const edges = [edge('a', 'yes', { label: '[Y] Yes' }), edge('a', 'no', { label: 'N) No' }), edge('a', 'later', { label: '(L) Later' })];

  it.each([
    ['[Y] Yes', 'yes'],
    ['yes', 'yes'],
    ['y', 'yes'],
    ['N) No', 'no'],
    ['no', 'no'],
    ['N', 'no'],
    ['l', 'later'],
    ['later', 'later'],
    ['(Y) Yes', 'yes'],
  ])('%s chooses %s', (answer, target) => {
    expect(chosen(edges, { preferredLabel: answer })).toEqual([target, 2]);
  });

  it('prefers a whole-label match over an accelerator key', () => {
    const tricky = [edge('a', 'key', { label: '[Y] Yes' }), edge('a', 'whole', { label: 'Y' })];
    expect(chosen(tricky, { preferredLabel: 'y' })).toEqual(['whole', 2]);
  });

  it('does not treat a plain label as an accelerator', () => {
    expect(chosen([edge('a', 'b', { label: 'Yes please' }), edge('a', 'c', { weight: 1 })], { preferredLabel: 'Y' })).toEqual(['c', 4]);
  });
});

describe('selectEdge: malformed conditions at run time', () => {
  it('counts an invalid condition as false and reports it for _condition_error', () => {
    const failures: EdgeConditionFailure[] = [];
    const edges = [edge('a', 'bad', { condition: 'x == 1', weight: 5 }), edge('a', 'good', { condition: 'x = 1' })];
    const selection = selectEdge(pipeline(edges), 'a', result(), context({ x: '1' }), { onConditionError: (failure) => failures.push(failure) });
    expect(selection).toMatchObject({ edge: { target: 'good' }, step: 1 });
    expect(failures).toHaveLength(1);
    expect(failures[0]!.edge.target).toBe('bad');
    expect(failures[0]!.error.reason).toBe('Use `=` for equality checks');
    expect(failures[0]!.message).toBe('edge a -> bad: condition "x == 1": Use `=` for equality checks (`==` at column 3)');
  });

  it('still routes when no callback is given', () => {
    expect(chosen([edge('a', 'bad', { condition: 'a or b' }), edge('a', 'plain')])).toEqual(['plain', 4]);
  });

  it('an edge whose condition is invalid can still be the final fallback', () => {
    expect(chosen([edge('a', 'bad', { condition: 'a or b', weight: 1 }), edge('a', 'false', { condition: 'missing' })])).toEqual(['bad', 5]);
  });
});
