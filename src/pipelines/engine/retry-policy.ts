/**
 * The retry policy of a node: how long the engine waits before each retry of a node that threw or
 * asked to retry, growing by a multiplier with random jitter (see `core/backoff.ts`). Set on a
 * node, or on the graph for every node that sets none:
 * `retry_delay` (the first wait, `1s`), `retry_backoff` (the multiplier, 2), `retry_max_delay`
 * (the longest wait, `60s`) and `retry_jitter` (true). How many retries there are is still
 * `max_retries` (the graph's `default_max_retry`). A gate (`wait.human`) asking again after an
 * answer that is none of its choices does not wait: a person is there.
 */
import { backoffProblem, type Backoff } from '../../core/backoff.ts';
import { parseBoolean, parseDecimal, parseDuration, type Parsed } from '../graph/values.ts';
import type { Pipeline, PipelineNode, ValidationFinding } from '../types.ts';

/** The policy of a node that sets nothing, in a graph that sets nothing. */
export const defaultNodeBackoff: Backoff = { initialDelayMs: 1_000, multiplier: 2, maxDelayMs: 60_000, jitter: true };

type Field = keyof Backoff;

/** The attributes, each with its field and reader. */
const attributes: readonly { name: string; field: Field; read: (text: string) => Parsed<number | boolean> }[] = [
  { name: 'retry_delay', field: 'initialDelayMs', read: (text) => seconds(text) },
  { name: 'retry_backoff', field: 'multiplier', read: (text) => parseDecimal(text, 1) },
  { name: 'retry_max_delay', field: 'maxDelayMs', read: (text) => seconds(text) },
  { name: 'retry_jitter', field: 'jitter', read: parseBoolean },
];

function seconds(text: string): Parsed<number> {
  // No wait at all is a policy too (a duration must otherwise be more than 0).
  if (/^\s*0*\.?0*\s*(ms|s)?\s*$/i.test(text) && /0/.test(text)) return { value: 0 };
  const parsed = parseDuration(text);
  return 'error' in parsed ? parsed : { value: Math.round(parsed.value * 1000) };
}

/** The policy of `node` in `pipeline` (what cannot be read is left at the default; validation names it). */
export function retryPolicyOf(node: PipelineNode, pipeline: Pipeline): Backoff {
  const policy: Record<Field, number | boolean> = { ...defaultNodeBackoff };
  for (const { name, field, read } of attributes) {
    const text = node.attributes[name] ?? pipeline.attributes[name];
    if (text === undefined) continue;
    const parsed = read(text);
    if ('value' in parsed) policy[field] = parsed.value;
  }
  return policy as unknown as Backoff;
}

/** `retry_policy` (ERROR): a retry attribute that cannot be read, or a policy that makes no sense. */
export function retryPolicyFindings(pipeline: Pipeline): ValidationFinding[] {
  const findings: ValidationFinding[] = [];
  const check = (owner: string, values: Readonly<Record<string, string>>, where: (name: string) => Pick<ValidationFinding, 'node' | 'location'>) => {
    for (const { name, read } of attributes) {
      const text = values[name];
      if (text === undefined) continue;
      const parsed = read(text);
      if ('error' in parsed) findings.push({ level: 'error', rule: 'retry_policy', message: `${owner} ${name}="${text}": ${parsed.error}`, ...where(name) });
    }
  };
  check('graph', pipeline.attributes, (name) => ({ location: pipeline.attributeLocations?.[name] }));
  for (const node of pipeline.nodes.values()) check(`node "${node.name}"`, node.attributes, () => ({ node: node.name, location: node.location }));
  if (findings.length > 0) return findings;
  for (const node of pipeline.nodes.values()) {
    const problem = backoffProblem(retryPolicyOf(node, pipeline));
    if (problem) findings.push({ level: 'error', rule: 'retry_policy', message: `node "${node.name}" retry policy: ${problem}`, node: node.name, location: node.location });
  }
  return findings;
}
