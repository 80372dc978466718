import { describe, expect, it } from 'vitest';
import {
  ConditionError,
  conditionMentionsFailure,
  conditionString,
  conditionTruthy,
  evaluateCondition,
  parseCondition,
  validateConditionSyntax,
} from '../../../src/pipelines/routing/conditions.ts';
import { context } from './pipeline-fixtures.ts';

function conditionError(expression: string): ConditionError {
  try {
    parseCondition(expression);
  } catch (error) {
    if (error instanceof ConditionError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(expression)} to be refused`);
}

describe('operators (spec table)', () => {
  it.each([
    ['=', 'outcome = success', { outcome: 'success' }, true],
    ['=', 'outcome = success', { outcome: 'fail' }, false],
    ['!=', 'exit_code != 0', { exit_code: 1 }, true],
    ['!=', 'exit_code != 0', { exit_code: 0 }, false],
    ['&&', 'outcome = success && tests_passed = true', { outcome: 'success', tests_passed: true }, true],
    ['&&', 'outcome = success && tests_passed = true', { outcome: 'success', tests_passed: false }, false],
    ['&&', 'outcome = success && tests_passed = true', { outcome: 'fail', tests_passed: true }, false],
  ])('%s: %s with %o is %s', (_operator, expression, data, expected) => {
    expect(evaluateCondition(expression, context(data))).toBe(expected);
  });

  it('compares strings exactly: case and form matter', () => {
    expect(evaluateCondition('outcome = SUCCESS', context({ outcome: 'success' }))).toBe(false);
    expect(evaluateCondition('n = 1.0', context({ n: 1 }))).toBe(false);
    expect(evaluateCondition('n = 1.5', context({ n: 1.5 }))).toBe(true);
    expect(evaluateCondition('n = -3', context({ n: -3 }))).toBe(true);
  });
});

describe('explicitly unsupported operators (spec table)', () => {
  it.each([
    ['==', 'outcome == success', 'Use `=` for equality checks', 8],
    ['<', 'count < 3', 'Comparison operators not supported', 6],
    ['>', 'count > 3', 'Comparison operators not supported', 6],
    ['<=', 'count <= 3', 'Comparison operators not supported', 6],
    ['>=', 'count >= 3', 'Comparison operators not supported', 6],
    ['and', 'a = 1 and b = 2', 'Use `&&` for AND; OR and NOT are not supported', 6],
    ['or', 'a = 1 or b = 2', 'Use `&&` for AND; OR and NOT are not supported', 6],
    ['not', 'not a', 'Use `&&` for AND; OR and NOT are not supported', 0],
    ['AND (any case)', 'a = 1 AND b = 2', 'Use `&&` for AND; OR and NOT are not supported', 6],
    ['||', 'a = 1 || b = 2', 'Use `&&` for AND; OR and NOT are not supported', 6],
    ['!', '!a', 'Use `&&` for AND; OR and NOT are not supported', 0],
  ])('%s is a ConditionError with the spec wording and the column', (found, expression, reason, position) => {
    const error = conditionError(expression);
    expect(error).toBeInstanceOf(ConditionError);
    expect(error.name).toBe('ConditionError');
    expect(error.reason).toBe(reason);
    expect(error.position).toBe(position);
    expect(error.column).toBe(position + 1);
    expect(error.message).toContain(reason);
    expect(error.message).toContain(`at column ${position + 1}`);
    expect(() => evaluateCondition(expression, context())).toThrow(ConditionError);
    expect(validateConditionSyntax(expression)).toBe(error.message);
    if (!found.includes(' ')) expect(error.found).toBe(found);
  });

  it('refuses == without spaces too, and names it in the message', () => {
    expect(validateConditionSyntax('outcome==success')).toBe('Use `=` for equality checks (`==` at column 8)');
  });

  it('accepts the reserved words when quoted, and words that only contain them', () => {
    expect(evaluateCondition('answer = "or"', context({ answer: 'or' }))).toBe(true);
    expect(evaluateCondition("order = notes && android", context({ order: 'notes', android: 'yes' }))).toBe(true);
  });
});

describe('variable resolution (spec table and order)', () => {
  it('outcome and preferred_label come from the engine variables', () => {
    expect(evaluateCondition('outcome = fail', context(), { outcome: 'fail' })).toBe(true);
    expect(evaluateCondition('preferred_label = Approve', context(), { outcome: 'success', preferred_label: 'Approve' })).toBe(true);
    expect(evaluateCondition('preferred_label = ""', context(), { outcome: 'success', preferred_label: '' })).toBe(true);
  });

  it('reads the engine variables before the context', () => {
    expect(evaluateCondition('outcome = fail', context({ outcome: 'success' }), { outcome: 'fail' })).toBe(true);
  });

  it('falls back to the context when the variable is not given', () => {
    expect(evaluateCondition('outcome = success', context({ outcome: 'success' }), { preferred_label: '' })).toBe(true);
    expect(evaluateCondition('outcome = success', context({ outcome: 'success' }), { outcome: undefined })).toBe(true);
  });

  it('context.key reads the context only, under the name without the prefix', () => {
    expect(evaluateCondition('context.tests_passed = true', context({ tests_passed: true }))).toBe(true);
    expect(evaluateCondition('context.outcome = success', context({ outcome: 'success' }), { outcome: 'fail' })).toBe(true);
    expect(evaluateCondition('context.graph.goal = ship', context({ 'graph.goal': 'ship' }))).toBe(true);
  });

  it('missing keys are the empty string, falsy for a bare-key check', () => {
    expect(evaluateCondition('missing = ""', context())).toBe(true);
    expect(evaluateCondition('missing != ""', context())).toBe(false);
    expect(evaluateCondition('missing', context())).toBe(false);
    expect(evaluateCondition('context.missing', context())).toBe(false);
  });

  it('does not find inherited properties of the variables object', () => {
    expect(evaluateCondition('toString', context(), { outcome: 'success' })).toBe(false);
  });

  it('stringifies booleans, numbers, null and structures', () => {
    expect([true, false, 0, 1.5, -2, 10n, null, undefined, ['a'], { a: 1 }, 'x'].map(conditionString)).toEqual([
      'true', 'false', '0', '1.5', '-2', '10', '', '', '["a"]', '{"a":1}', 'x',
    ]);
    expect(evaluateCondition('flag = false', context({ flag: false }))).toBe(true);
    expect(evaluateCondition('exit_code = 0', context({ exit_code: 0 }))).toBe(true);
  });

  it('a bare key is true for a non-empty value that is not false', () => {
    const cases: [unknown, boolean][] = [
      ['yes', true], [true, true], [0, true], [1, true], ['0', true], [['x'], true], [{ a: 1 }, true],
      ['', false], [false, false], ['false', false], ['FALSE', false], [null, false], [undefined, false], [[], false], [{}, false],
    ];
    for (const [value, expected] of cases) {
      expect([value, conditionTruthy(value)]).toEqual([value, expected]);
      expect([value, evaluateCondition('tests_passed', context({ tests_passed: value }))]).toEqual([value, expected]);
    }
  });
});

describe('syntax forms (spec block)', () => {
  it('parses each form to its clauses', () => {
    expect(parseCondition('outcome = success').clauses).toEqual([
      { kind: 'compare', key: { text: 'outcome', name: 'outcome', scope: 'any' }, operator: '=', value: 'success', position: 0 },
    ]);
    expect(parseCondition('exit_code != 0').clauses).toEqual([
      { kind: 'compare', key: { text: 'exit_code', name: 'exit_code', scope: 'any' }, operator: '!=', value: '0', position: 0 },
    ]);
    expect(parseCondition('context.tests_passed = true').clauses).toEqual([
      { kind: 'compare', key: { text: 'context.tests_passed', name: 'tests_passed', scope: 'context' }, operator: '=', value: 'true', position: 0 },
    ]);
    expect(parseCondition('tests_passed').clauses).toEqual([{ kind: 'truthy', key: { text: 'tests_passed', name: 'tests_passed', scope: 'any' }, position: 0 }]);
    expect(parseCondition('outcome = success && tests_passed = true').clauses.map((clause) => clause.position)).toEqual([0, 21]);
    expect(parseCondition('').clauses).toEqual([]);
  });

  it('an empty or blank expression is true and valid', () => {
    expect(evaluateCondition('', context())).toBe(true);
    expect(evaluateCondition('   ', context())).toBe(true);
    expect(validateConditionSyntax('')).toBeUndefined();
  });

  it('needs no spaces around operators', () => {
    expect(evaluateCondition('outcome=success&&exit_code!=1', context({ outcome: 'success', exit_code: 0 }))).toBe(true);
  });

  it('takes bare-word values literally, and quoted values with spaces and escapes', () => {
    expect(parseCondition('mode = summary:high && version = v1.2-beta && path = a/b').clauses.map((c) => (c.kind === 'compare' ? c.value : ''))).toEqual([
      'summary:high', 'v1.2-beta', 'a/b',
    ]);
    expect(evaluateCondition('answer = "needs work"', context({ answer: 'needs work' }))).toBe(true);
    // No SQL-style doubled quotes: two strings in a row are refused.
    expect(validateConditionSyntax("answer = 'it''s'")).toMatch(/^Expected `&&` or the end after the value of `answer`/);
    expect(evaluateCondition(String.raw`answer = 'it\'s'`, context({ answer: "it's" }))).toBe(true);
    expect(parseCondition(String.raw`a = "say \"hi\" \\ \n" && b = 'x = y'`).clauses.map((c) => (c.kind === 'compare' ? c.value : ''))).toEqual([
      String.raw`say "hi" \ \n`, 'x = y',
    ]);
    expect(evaluateCondition('answer = ""', context({ answer: '' }))).toBe(true);
  });

  it('accepts dotted and hyphenated keys', () => {
    expect(evaluateCondition('graph.goal = ship && branch-1.status = ok', context({ 'graph.goal': 'ship', 'branch-1.status': 'ok' }))).toBe(true);
  });
});

describe('malformed conditions', () => {
  it.each([
    ['outcome =', 'Expected a value after `=`', 9],
    ['outcome != && a', 'Expected a value after `!=`', 11],
    ['= success', 'Expected a key before `=`', 0],
    ['&& a', 'Expected a condition before `&&`', 0],
    ['a &&', 'Expected a condition after `&&`', 4],
    ['a && && b', 'Expected a condition between two `&&`', 5],
    ['a b', 'Expected `=`, `!=` or `&&` after `a`', 2],
    ['label = needs work', 'Expected `&&` or the end after the value of `label` (quote a value that contains spaces)', 14],
    ['a = b = c', 'Expected `&&` or the end after the value of `a` (quote a value that contains spaces)', 6],
    ['"a" = b', 'A key cannot be quoted', 0],
    ['a = "open', 'Unterminated string: add the closing "', 4],
    ['a & b', 'Use `&&` for AND', 2],
    ['(a = b)', 'Parentheses are not supported: join clauses with `&&`', 0],
    ['1x = b', 'A key is letters, digits, `_` and `-`, in `.`-separated parts, starting with a letter or `_`', 0],
    ['context. = b', 'A key is letters, digits, `_` and `-`, in `.`-separated parts, starting with a letter or `_`', 0],
    ['a..b', 'A key is letters, digits, `_` and `-`, in `.`-separated parts, starting with a letter or `_`', 0],
  ])('%s: %s', (expression, reason, position) => {
    const error = conditionError(expression);
    expect([error.reason, error.position]).toEqual([reason, position]);
    expect(validateConditionSyntax(expression)).toBe(error.message);
  });

  it('says "at the end" when the expression stops short', () => {
    expect(validateConditionSyntax('outcome =')).toBe('Expected a value after `=` (at the end of the condition)');
  });

  it('validates the valid forms as undefined', () => {
    for (const expression of ['outcome = success', 'exit_code != 0', 'context.tests_passed = true', 'tests_passed', 'outcome = success && tests_passed = true']) {
      expect(validateConditionSyntax(expression)).toBeUndefined();
    }
  });
});

describe('conditionMentionsFailure', () => {
  it.each([
    ['outcome = fail', true],
    ['outcome=fail', true],
    ['context.outcome = fail', true],
    ['tests_passed = false && outcome = fail', true],
    ['outcome = "fail"', true],
    ['outcome != fail', false],
    ['outcome != success', false],
    ['outcome = success', false],
    ['status = fail', false],
    ['outcome = FAIL', false],
    ['', false],
    ['outcome == fail', false],
  ])('%s: %s', (expression, expected) => {
    expect(conditionMentionsFailure(expression)).toBe(expected);
  });
});
