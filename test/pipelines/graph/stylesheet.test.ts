import { describe, expect, it } from 'vitest';
import { StylesheetSyntaxError } from '../../../src/pipelines/graph/errors.ts';
import { parsePipeline } from '../../../src/pipelines/graph/parse.ts';
import { applyStylesheet, parseStylesheet } from '../../../src/pipelines/graph/stylesheet.ts';
import type { PipelineNode } from '../../../src/pipelines/types.ts';

/** The nodes of a small pipeline, by name. */
function nodesOf(dot: string): Map<string, PipelineNode> {
  return new Map(parsePipeline(dot).nodes);
}

function stylesheetError(css: string): StylesheetSyntaxError {
  try {
    parseStylesheet(css);
  } catch (error) {
    if (error instanceof StylesheetSyntaxError) return error;
    throw error;
  }
  throw new Error('parsed without error');
}

describe('parseStylesheet', () => {
  it('reads the spec example', () => {
    const sheet = parseStylesheet(`
* { model: gpt-4o }
#implement { model: claude-opus-4-6; reasoning_effort: high }
.fast { timeout: 30 }
`);
    expect(sheet.rules).toEqual([
      { selector: { kind: 'universal' }, specificity: 0, declarations: { model: 'gpt-4o' }, location: { line: 2, column: 1 } },
      { selector: { kind: 'id', id: 'implement' }, specificity: 3, declarations: { model: 'claude-opus-4-6', reasoningEffort: 'high' }, location: { line: 3, column: 1 } },
      { selector: { kind: 'class', className: 'fast' }, specificity: 2, declarations: { timeout: 30 }, location: { line: 4, column: 1 } },
    ]);
  });

  it('reads every property with its type', () => {
    const [rule] = parseStylesheet('box { llm_model: "claude opus"; llm_provider: anthropic; reasoning_effort: LOW; temperature: 0.5; max_tokens: 2048; timeout: 2m; retry_count: 4 }').rules;
    expect(rule).toMatchObject({
      selector: { kind: 'shape', shape: 'box' },
      specificity: 1,
      declarations: { model: 'claude opus', provider: 'anthropic', reasoningEffort: 'low', temperature: 0.5, maxTokens: 2048, timeout: 120, maxRetries: 4 },
    });
  });

  it('splits selector lists, takes quoted ids and comments', () => {
    const sheet = parseStylesheet('/* cheap ones */ .a, #"write docs", Mdiamond { provider: openai; }');
    expect(sheet.rules.map((rule) => rule.selector)).toEqual([
      { kind: 'class', className: 'a' },
      { kind: 'id', id: 'write docs' },
      { kind: 'shape', shape: 'Mdiamond' },
    ]);
  });

  it('takes an empty rule', () => {
    expect(parseStylesheet('* {}').rules).toHaveLength(1);
  });

  it.each([
    ['', 'no rules', 1, 1],
    ['  /* nothing */ ', 'no rules', 1, 1],
    ['* { model: x', 'expected a "}" to close the rule, found the end', 1, 13],
    ['* model: x }', 'expected a "{" after the selector, found "m"', 1, 3],
    ['*\n{ modle: x }', 'unknown property "modle"', 2, 3],
    ['* { toString: x }', 'unknown property "toString"', 1, 5],
    ['* { timeout: 3constructor }', 'timeout: expected seconds', 1, 14],
    ['* { model x }', 'expected a ":" after "model", found "x"', 1, 11],
    ['* { model: ; }', '"model" has no value', 1, 12],
    ['* { temperature: warm }', 'temperature: expected a number of 0 or more, got "warm"', 1, 18],
    ['* { max_tokens: 1.5 }', 'max_tokens: expected a whole number of 1 or more', 1, 17],
    ['* { reasoning_effort: max }', 'reasoning_effort: expected low, medium or high', 1, 23],
    ['* { timeout: soon }', 'timeout: expected seconds', 1, 14],
    ['@media { }', 'expected a selector: *, a shape name, .class or #id, found "@"', 1, 1],
    ['. { }', 'expected a class name after ".", found " "', 1, 2],
    ['* { model: "x }', 'a quoted value is not closed', 1, 12],
    ['/* open', 'a comment is not closed with */', 1, 1],
  ])('refuses %j: %s at %i:%i', (css, reason, line, column) => {
    const error = stylesheetError(css);
    expect(error.reason).toContain(reason);
    expect({ line: error.line, column: error.column }).toEqual({ line, column });
    expect(error.message).toBe(`model_stylesheet ${line}:${column}: ${error.reason}`);
  });
});

describe('applyStylesheet', () => {
  const nodes = nodesOf(`digraph g {
    start [shape=Mdiamond]
    plain [prompt=p]
    fast [class="fast" prompt=p]
    both [class="fast deep" prompt=p]
    chosen [class="fast deep" prompt=p]
    own [class="deep" prompt=p llm_model=mine reasoning_effort=low max_retries=9 timeout=1]
  }`);
  const sheet = parseStylesheet(`
    #chosen { llm_model: by-id }
    .deep { llm_model: by-deep-class; max_tokens: 100 }
    .fast { llm_model: by-fast-class; timeout: 30 }
    box { llm_model: by-shape; temperature: 0.3 }
    * { llm_model: by-universal; llm_provider: anthropic; reasoning_effort: medium; retry_count: 2 }
  `);
  const styled = (name: string) => applyStylesheet(sheet, nodes.get(name)!);

  it('orders by specificity: universal < shape < class < id, whatever the order written', () => {
    expect(styled('start')).toMatchObject({ model: 'by-universal', provider: 'anthropic', reasoningEffort: 'medium', maxRetries: 2 });
    expect(styled('start').temperature).toBeUndefined();
    expect(styled('plain')).toMatchObject({ model: 'by-shape', temperature: 0.3 });
    expect(styled('fast')).toMatchObject({ model: 'by-fast-class', timeout: 30, temperature: 0.3 });
    expect(styled('chosen')).toMatchObject({ model: 'by-id', maxTokens: 100, timeout: 30 });
  });

  it('lets the later rule win among equal specificity', () => {
    expect(styled('both').model).toBe('by-fast-class');
  });

  it("never overrides the node's own DOT attributes", () => {
    expect(styled('own')).toMatchObject({ model: 'mine', reasoningEffort: 'low', maxRetries: 9, timeout: 1, maxTokens: 100, provider: 'anthropic' });
  });

  it('counts `node [..]` defaults as the node’s own attributes', () => {
    const defaults = nodesOf('digraph g { node [llm_model="from-defaults"]; a [prompt=p] }');
    expect(applyStylesheet(parseStylesheet('* { llm_model: from-sheet }'), defaults.get('a')!).model).toBe('from-defaults');
  });

  it('matches shapes in any case', () => {
    const node = nodes.get('start')!;
    expect(applyStylesheet(parseStylesheet('mdiamond { timeout: 5 }'), node).timeout).toBe(5);
  });

  it('returns a new node and leaves the given one and its attributes alone', () => {
    const before = nodes.get('plain')!;
    const copy = structuredClone({ ...before, attributes: { ...before.attributes } });
    const after = applyStylesheet(sheet, before);
    expect(after).not.toBe(before);
    expect(before).toEqual(copy);
    expect(after.attributes).toEqual(before.attributes);
    expect(applyStylesheet(parseStylesheet('#nobody { timeout: 1 }'), before)).toEqual(before);
  });
});
