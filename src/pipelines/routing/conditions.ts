/**
 * The condition language of edges (spec section 3): evaluate, validate, and the one question
 * failure routing asks. The grammar and its exact rules are in `condition-parser.ts`; how values
 * compare is in `condition-values.ts`.
 *
 * Resolution of a key: a bare key (`outcome`, `tests_passed`, `graph.goal`) reads the engine's
 * extra variables first (`outcome`, `preferred_label`), then the context; a `context.`-prefixed
 * key (`context.tests_passed`) reads only the context, under the name without the prefix. A key
 * found nowhere is `''`. Comparisons are exact and case-sensitive on the strings of
 * {@link conditionString}.
 */
import type { ContextView } from '../types.ts';
import { ConditionError } from './condition-error.ts';
import { parseCondition, type ConditionClause } from './condition-parser.ts';
import { conditionString, conditionTruthy } from './condition-values.ts';

export { ConditionError } from './condition-error.ts';
export { parseCondition, unsupportedOperatorMessages, type ConditionAst, type ConditionClause, type ConditionKey } from './condition-parser.ts';
export { conditionString, conditionTruthy } from './condition-values.ts';

/** The variables the engine adds to every evaluation (spec: engine-injected variables). */
export interface ConditionVariables {
  /** The node's outcome: `success`, `partial_success`, `retry`, `fail`, `skipped`. */
  outcome?: string;
  /** The node's preferred label, or `''`. */
  preferred_label?: string;
  [name: string]: unknown;
}

/**
 * Whether `expression` holds: every `&&`-joined clause is true. A blank expression is true (the
 * unconditional edge).
 *
 * @param extra The engine's variables, read before the context for bare keys.
 * @throws {ConditionError} when the expression is not valid.
 */
export function evaluateCondition(expression: string, context: ContextView, extra?: ConditionVariables): boolean {
  return parseCondition(expression).clauses.every((clause) => clauseHolds(clause, context, extra));
}

/** `undefined` when `expression` is a valid condition; otherwise what is wrong and where. */
export function validateConditionSyntax(expression: string): string | undefined {
  try {
    parseCondition(expression);
    return undefined;
  } catch (error) {
    if (error instanceof ConditionError) return error.message;
    throw error;
  }
}

/**
 * Whether the condition tests the outcome for failure: one of its clauses is `outcome = fail` (or
 * `context.outcome = fail`). Failure routing takes only such edges. `outcome != success` is not
 * one, even though it also holds on failure: the spec asks for a condition naming `fail`. An
 * invalid expression mentions nothing.
 */
export function conditionMentionsFailure(expression: string): boolean {
  try {
    return parseCondition(expression).clauses.some(
      (clause) => clause.kind === 'compare' && clause.operator === '=' && clause.key.name === 'outcome' && clause.value === 'fail',
    );
  } catch (error) {
    if (error instanceof ConditionError) return false;
    throw error;
  }
}

function clauseHolds(clause: ConditionClause, context: ContextView, extra: Record<string, unknown> | undefined): boolean {
  const value = resolve(clause, context, extra);
  if (clause.kind === 'truthy') return conditionTruthy(value);
  const equal = conditionString(value) === clause.value;
  return clause.operator === '=' ? equal : !equal;
}

function resolve(clause: ConditionClause, context: ContextView, extra: Record<string, unknown> | undefined): unknown {
  const { name, scope } = clause.key;
  // Own properties only: a key named `toString` must not find Object.prototype's.
  if (scope === 'any' && extra !== undefined && Object.hasOwn(extra, name) && extra[name] !== undefined) return extra[name];
  return context.get(name);
}
