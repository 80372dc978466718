/**
 * The tokenizer and parser of the condition language (spec section 3). The whole grammar:
 *
 * ```
 * expression := ''                          (blank: always true)
 *             | clause ( '&&' clause )*
 * clause     := key                         (truthy check)
 *             | key ( '=' | '!=' ) value
 * key        := segment ( '.' segment )*    first segment [A-Za-z_][A-Za-z0-9_-]*, others [A-Za-z0-9_-]+
 * value      := word | "quoted" | 'quoted'
 * ```
 *
 * - Whitespace between tokens is optional (`outcome=success` is fine).
 * - A bare word value runs until whitespace or one of `= ! < > & | ( ) " '`; it is taken literally
 *   (`0`, `-1`, `1.5`, `summary:high`, `v1.2-beta` are all plain strings, numbers included: the
 *   language compares strings, so `1.0` does not equal `1`). A value with spaces or operator
 *   characters must be quoted; inside quotes only `\\` and a backslash before the quote character
 *   are escapes, any other backslash is kept as written.
 * - `and`, `or` and `not` (any case) are reserved: as bare words they are refused, as keys or as
 *   values; quote them to compare against those words.
 * - A key written `context.name` reads `name` from the context only; a bare key reads the engine's
 *   extra variables first (see `conditions.ts`).
 *
 * Anything else is a {@link ConditionError} with its column: no partial acceptance of garbage.
 */
import { ConditionError } from './condition-error.ts';

/** The key of a clause. */
export interface ConditionKey {
  /** As written: `context.tests_passed`. */
  text: string;
  /** The name looked up: `tests_passed`. */
  name: string;
  /**
   * `context`: written with the `context.` prefix, so only the context is read. `any`: the engine's
   * extra variables (`outcome`, `preferred_label`) first, then the context.
   */
  scope: 'any' | 'context';
}

/** One `&&`-joined part of a condition. `position` is the 0-based offset of its key. */
export type ConditionClause =
  | { kind: 'compare'; key: ConditionKey; operator: '=' | '!='; value: string; position: number }
  | { kind: 'truthy'; key: ConditionKey; position: number };

/** A parsed condition: true when every clause is (no clauses: the blank, unconditional one). */
export interface ConditionAst {
  clauses: readonly ConditionClause[];
}

/** The spec's wording for the refused operators. */
export const unsupportedOperatorMessages = {
  equality: 'Use `=` for equality checks',
  comparison: 'Comparison operators not supported',
  logic: 'Use `&&` for AND; OR and NOT are not supported',
} as const;

/** A quoted value: `text` unescaped, `raw` as written with its quotes. */
interface StringToken {
  kind: 'string';
  text: string;
  raw: string;
  position: number;
}

type Token = { kind: 'word' | 'eq' | 'neq' | 'and'; text: string; position: number } | StringToken;

const contextPrefix = 'context.';
const reservedWords = new Set(['and', 'or', 'not']);
/** Characters that end a bare word: operators, quotes, parentheses (whitespace too). */
const wordStops = new Set(['=', '!', '<', '>', '&', '|', '(', ')', '"', "'"]);
const keyPattern = /^[A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z0-9_-]+)*$/;

/**
 * Parses a condition expression.
 *
 * @throws {ConditionError} when it is not in the language (unsupported operator, missing value,
 *   unterminated quote, ...), with the column.
 */
export function parseCondition(expression: string): ConditionAst {
  return parseTokens(tokenize(expression), expression);
}

function tokenize(expression: string): Token[] {
  const tokens: Token[] = [];
  const fail = (reason: string, position: number, found?: string): never => {
    throw new ConditionError(reason, expression, position, found);
  };
  let i = 0;
  while (i < expression.length) {
    const ch = expression[i]!;
    if (isSpace(ch)) {
      i++;
      continue;
    }
    // Two-character operators first, so `!=` is not read as `!` nor `==` as `=`.
    const pair = expression.slice(i, i + 2);
    if (pair === '&&' || pair === '!=') {
      tokens.push({ kind: pair === '&&' ? 'and' : 'neq', text: pair, position: i });
      i += 2;
      continue;
    }
    if (pair === '==') fail(unsupportedOperatorMessages.equality, i, pair);
    if (pair === '<=' || pair === '>=') fail(unsupportedOperatorMessages.comparison, i, pair);
    if (pair === '||') fail(unsupportedOperatorMessages.logic, i, pair);
    switch (ch) {
      case '=':
        tokens.push({ kind: 'eq', text: ch, position: i });
        i++;
        continue;
      case '<':
      case '>':
        return fail(unsupportedOperatorMessages.comparison, i, ch);
      case '!':
      case '|':
        return fail(unsupportedOperatorMessages.logic, i, ch);
      case '&':
        return fail('Use `&&` for AND', i, ch);
      case '(':
      case ')':
        return fail('Parentheses are not supported: join clauses with `&&`', i, ch);
      case '"':
      case "'": {
        const token = readQuoted(expression, i);
        tokens.push(token);
        i += token.raw.length;
        continue;
      }
      default: {
        let end = i;
        while (end < expression.length && !isSpace(expression[end]!) && !wordStops.has(expression[end]!)) end++;
        const text = expression.slice(i, end);
        if (reservedWords.has(text.toLowerCase())) fail(unsupportedOperatorMessages.logic, i, text);
        tokens.push({ kind: 'word', text, position: i });
        i = end;
      }
    }
  }
  return tokens;
}

function readQuoted(expression: string, start: number): StringToken {
  const quote = expression[start]!;
  let text = '';
  let i = start + 1;
  while (i < expression.length) {
    const ch = expression[i]!;
    if (ch === quote) return { kind: 'string', text, raw: expression.slice(start, i + 1), position: start };
    const next = expression[i + 1];
    if (ch === '\\' && (next === quote || next === '\\')) {
      text += next;
      i += 2;
    } else {
      text += ch;
      i++;
    }
  }
  throw new ConditionError(`Unterminated string: add the closing ${quote}`, expression, start, quote);
}

function parseTokens(tokens: readonly Token[], expression: string): ConditionAst {
  const clauses: ConditionClause[] = [];
  const fail = (reason: string, token: Token | undefined): never => {
    throw new ConditionError(reason, expression, token?.position ?? expression.length, token?.text);
  };
  let i = 0;
  while (i < tokens.length) {
    const keyToken = tokens[i]!;
    if (keyToken.kind === 'and') fail(i === 0 ? 'Expected a condition before `&&`' : 'Expected a condition between two `&&`', keyToken);
    if (keyToken.kind === 'eq' || keyToken.kind === 'neq') fail(`Expected a key before \`${keyToken.text}\``, keyToken);
    if (keyToken.kind === 'string') fail('A key cannot be quoted', keyToken);
    const key = parseKey(keyToken, expression);
    const operator = tokens[i + 1];
    if (operator === undefined || operator.kind === 'and') {
      clauses.push({ kind: 'truthy', key, position: keyToken.position });
      i += 1;
    } else if (operator.kind === 'eq' || operator.kind === 'neq') {
      const value = tokens[i + 2];
      if (value === undefined || (value.kind !== 'word' && value.kind !== 'string')) fail(`Expected a value after \`${operator.text}\``, value);
      clauses.push({ kind: 'compare', key, operator: operator.kind === 'eq' ? '=' : '!=', value: value!.text, position: keyToken.position });
      i += 3;
      const after = tokens[i];
      if (after !== undefined && after.kind !== 'and') {
        fail(`Expected \`&&\` or the end after the value of \`${key.text}\` (quote a value that contains spaces)`, after);
      }
    } else {
      fail(`Expected \`=\`, \`!=\` or \`&&\` after \`${key.text}\``, operator);
    }
    // Here tokens[i] is `&&` or the end.
    if (i < tokens.length) {
      i++;
      if (i === tokens.length) fail('Expected a condition after `&&`', undefined);
    }
  }
  return { clauses };
}

function parseKey(token: Token, expression: string): ConditionKey {
  const text = token.text;
  if (!keyPattern.test(text)) {
    throw new ConditionError('A key is letters, digits, `_` and `-`, in `.`-separated parts, starting with a letter or `_`', expression, token.position, text);
  }
  if (text.startsWith(contextPrefix)) return { text, name: text.slice(contextPrefix.length), scope: 'context' };
  return { text, name: text, scope: 'any' };
}

function isSpace(ch: string): boolean {
  return /\s/.test(ch);
}
