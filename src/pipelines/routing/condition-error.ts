/**
 * The error of the condition language: an edge condition that is not a valid expression. It says
 * what is wrong in words meant for the pipeline's author and where (the column in the expression),
 * so validation can report it against the edge and the engine can put it in `_condition_error`.
 */

/** A condition expression that is not in the condition language. */
export class ConditionError extends Error {
  override readonly name = 'ConditionError';

  /**
   * @param reason What is wrong, without the position: for the unsupported operators, the spec's
   *   wording ("Use `=` for equality checks", ...).
   * @param expression The whole expression, as given.
   * @param position 0-based offset of the offending text; `expression.length` for "at the end".
   * @param found The offending text as written (`==`, `or`, ...), when there is some.
   */
  constructor(
    readonly reason: string,
    readonly expression: string,
    readonly position: number,
    readonly found?: string,
  ) {
    super(`${reason} (${describeWhere(expression, position, found)})`);
  }

  /** 1-based column of the offending text, as editors count. */
  get column(): number {
    return this.position + 1;
  }
}

function describeWhere(expression: string, position: number, found: string | undefined): string {
  if (position >= expression.length) return 'at the end of the condition';
  return found === undefined ? `at column ${position + 1}` : `\`${found}\` at column ${position + 1}`;
}
