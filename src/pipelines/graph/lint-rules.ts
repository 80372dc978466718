/**
 * Validation rules beyond the spec's table: the providers the nodes and the stylesheet name, the
 * goal conditions' syntax, the retry policies (`engine/retry-policy.ts`), and the caller's own rules (`ValidateOptions.rules`, the spec's
 * `register_lint_rule`), each run behind a catch so that a rule that throws is a finding naming
 * it, never a crash of validation.
 */
import { retryPolicyFindings } from '../engine/retry-policy.ts';
import { validateConditionSyntax } from '../routing/conditions.ts';
import type { Pipeline, ValidationFinding } from '../types.ts';
import { parseStylesheet } from './stylesheet.ts';
import { closestName } from './suggest.ts';

/**
 * A custom validation rule: its name (shown as the finding's rule when it throws) and the check,
 * which gives its findings (their `rule` is theirs to set; the rule's name is a good one).
 */
export interface LintRule {
  name: string;
  check(pipeline: Pipeline): readonly ValidationFinding[];
}

/** The graph attribute whose conditions must hold before the run may exit (see `goal-gates.ts`). */
export const goalConditionAttribute = 'goal_condition';

/** Findings of the providers named, the goal conditions, the retry policies, then `custom`, in that order. */
export function extraFindings(pipeline: Pipeline, knownProviders: readonly string[] | undefined, custom: readonly LintRule[]): ValidationFinding[] {
  return [
    ...(knownProviders ? providerKnown(pipeline, knownProviders) : []),
    ...goalConditionSyntax(pipeline),
    ...retryPolicyFindings(pipeline),
    ...custom.flatMap((rule) => runRule(rule, pipeline)),
  ];
}

function runRule(rule: LintRule, pipeline: Pipeline): readonly ValidationFinding[] {
  try {
    return rule.check(pipeline);
  } catch (caught) {
    return [{ level: 'error', rule: rule.name, message: `the lint rule "${rule.name}" failed: ${caught instanceof Error ? caught.message : String(caught)}` }];
  }
}

/** `provider_known` (ERROR): a provider no model can be asked through would fail the node at run time. */
function providerKnown(pipeline: Pipeline, known: readonly string[]): ValidationFinding[] {
  const findings: ValidationFinding[] = [];
  const check = (provider: string | undefined, owner: string, where: Pick<ValidationFinding, 'node' | 'location'>) => {
    if (provider === undefined || known.includes(provider.toLowerCase())) return;
    const near = closestName(provider.toLowerCase(), known);
    findings.push({ level: 'error', rule: 'provider_known', message: `${owner}: "${provider}" is not a provider operator talks to (${known.join(', ')})`, ...where, ...(near ? { fix: `did you mean "${near}"?` } : {}) });
  };
  for (const node of pipeline.nodes.values()) check(node.provider, `node "${node.name}" provider`, { node: node.name, location: node.location });
  if (pipeline.modelStylesheet !== undefined) {
    let rules: ReturnType<typeof parseStylesheet>['rules'] = [];
    try {
      rules = parseStylesheet(pipeline.modelStylesheet).rules;
    } catch {
      // stylesheet_syntax reports it.
    }
    for (const rule of rules) check(rule.declarations.provider, 'model_stylesheet provider', { location: pipeline.attributeLocations?.['model_stylesheet'] });
  }
  return findings;
}

/** `condition_syntax` of the goal conditions (the graph's and the goal-gate nodes'). */
function goalConditionSyntax(pipeline: Pipeline): ValidationFinding[] {
  const findings: ValidationFinding[] = [];
  const check = (condition: string | undefined, owner: string, where: Pick<ValidationFinding, 'node' | 'location'>) => {
    if (condition === undefined) return;
    const problem = validateConditionSyntax(condition);
    if (problem !== undefined) findings.push({ level: 'error', rule: 'condition_syntax', message: `${owner} "${condition}": ${problem}`, ...where });
  };
  check(pipeline.attributes[goalConditionAttribute], `graph ${goalConditionAttribute}`, { location: pipeline.attributeLocations?.[goalConditionAttribute] });
  for (const node of pipeline.nodes.values()) check(node.attributes[goalConditionAttribute], `node "${node.name}" ${goalConditionAttribute}`, { node: node.name, location: node.location });
  return findings;
}
