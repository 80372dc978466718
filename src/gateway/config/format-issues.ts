/**
 * Turns zod issues into `path: reason` lines a person can act on, e.g.
 * `admins[2]: expected "platform:userId" ...` or `dmPolicy.telegram: expected one of ...`.
 * Reasons never quote the value that was given, so a secret in a wrong place stays out of logs.
 */
import type * as z from 'zod';
import { knownKeysAt } from './known-keys.ts';
import { nearestKey } from './nearest-key.ts';

/** One problem: where (a JSON path, or an environment variable) and why. */
export interface ConfigProblem {
  path: string;
  reason: string;
}

/** A JSON path in the usual notation: `a.b[2]["telegram:1"]`; `prefix` starts it. */
export function formatPath(path: readonly PropertyKey[], prefix = ''): string {
  let text = prefix;
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${segment}]`;
    else if (typeof segment === 'string' && /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(segment)) text += text === '' ? segment : `.${segment}`;
    else text += `[${JSON.stringify(String(segment))}]`;
  }
  return text === '' ? '(top level)' : text;
}

/**
 * The problems of a failed parse of `input`, one per issue (one per key for unknown keys).
 * `prefix` names where `input` came from when it is not the file's top level (an environment
 * variable). With the `schema` that was parsed, an unknown key names the nearest known one
 * (`dmPolicies: unknown setting; did you mean dmPolicy?`).
 */
export function formatIssues(issues: readonly z.core.$ZodIssue[], input: unknown, prefix = '', schema?: z.ZodType): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      const known = schema ? knownKeysAt(schema, issue.path) : [];
      for (const key of issue.keys) problems.push({ path: formatPath([...issue.path, key], prefix), reason: unknownKeyReason(key, known) });
      continue;
    }
    problems.push({ path: formatPath(issue.path, prefix), reason: issueReason(issue, valueAt(input, issue.path)) });
  }
  return problems;
}

function unknownKeyReason(key: string, known: readonly string[]): string {
  if (/token|signingsecret/i.test(key)) return 'not a setting: tokens and signing secrets are read only from the environment (e.g. TELEGRAM_BOT_TOKEN, SLACK_SIGNING_SECRET)';
  const nearest = nearestKey(key, known);
  return nearest === undefined ? 'unknown setting (see operator.schema.json)' : `unknown setting; did you mean ${nearest}? (see operator.schema.json)`;
}

function issueReason(issue: z.core.$ZodIssue, value: unknown): string {
  switch (issue.code) {
    case 'invalid_type':
      return value === undefined ? `required (${article(issue.expected)})` : `expected ${article(issue.expected)}, got ${kindOf(value)}`;
    case 'invalid_value':
      return `expected one of ${issue.values.map((allowed) => JSON.stringify(allowed)).join(', ')}`;
    case 'too_small':
      if (issue.origin === 'string') return 'must not be empty';
      return issue.inclusive ? `must be at least ${String(issue.minimum)}` : `must be greater than ${String(issue.minimum)}`;
    case 'too_big':
      return issue.inclusive ? `must be at most ${String(issue.maximum)}` : `must be less than ${String(issue.maximum)}`;
    case 'invalid_format':
      if (issue.format === 'url') return 'expected a URL such as https://example.com/path';
      return issue.message;
    case 'invalid_key':
      return `invalid key: ${issue.issues.map((inner) => inner.message).join('; ')}`;
    case 'invalid_element':
      return `invalid entry: ${issue.issues.map((inner) => inner.message).join('; ')}`;
    default:
      return issue.message;
  }
}

function article(expected: string): string {
  const names: Record<string, string> = {
    int: 'an integer',
    // Every number operator.json holds is a whole one (zod reports z.int()'s type as "number").
    number: 'an integer',
    string: 'a string',
    boolean: 'true or false',
    object: 'an object',
    array: 'an array',
    record: 'an object',
  };
  return names[expected] ?? expected;
}

/** The JSON kind of a value, never the value itself. */
function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'an integer' : 'a fractional number';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current = input;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment];
  }
  return current;
}
