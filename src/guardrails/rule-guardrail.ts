/**
 * A guardrail made of declarative rules (one guardrail file). Rules are tried in file order for
 * the phase at hand; the first one that triggers decides, so an `allow` rule placed first is an
 * exception to the broader rules after it. Rules after the deciding one do not see the call.
 */
import picomatch from 'picomatch';
import type { AfterCallResult, BeforeCallDecision, Guardrail } from '../agent/guardrail.ts';
import { canonicalJson } from '../agent/loop-detector.ts';
import type { ToolCallPart } from '../llm/types.ts';
import type { GuardrailRule } from './rule-schema.ts';
import type { TurnContext } from '../tools/tool.ts';
import { perTurnState } from './per-turn-state.ts';

interface CompiledRule {
  rule: GuardrailRule;
  phase: 'before' | 'after';
  matchesTool: (name: string) => boolean;
  argumentPatterns: [string, RegExp][];
  match: RegExp | undefined;
}

/**
 * Creates the guardrail of one file. `rules` must already be valid (see `guardrailFileSchema`):
 * a bad regular expression throws here.
 */
export function createRuleGuardrail(name: string, rules: readonly GuardrailRule[]): Guardrail {
  const compiled = rules.map(compileRule);
  // A rule's calls are counted per turn (`per-turn-state.ts`).
  const turns = perTurnState(() => new Map<CompiledRule, number>());

  /** The rule that triggers on `call` in `phase`, counting the call for rules with a per-turn cap. */
  const decide = (call: ToolCallPart, phase: 'before' | 'after', turn: TurnContext | undefined): { rule: GuardrailRule; reason: string } | undefined => {
    const counts = turns.of(turn);
    for (const entry of compiled) {
      if (entry.phase !== phase || !matches(entry, call)) continue;
      const { rule } = entry;
      if (rule.maxCallsPerTurn === undefined) return { rule, reason: rule.reason ?? '' };
      const count = (counts.get(entry) ?? 0) + 1;
      counts.set(entry, count);
      if (count > rule.maxCallsPerTurn) {
        return { rule, reason: `${rule.reason ?? ''} (${count} matching calls this turn, at most ${rule.maxCallsPerTurn})`.trim() };
      }
    }
    return undefined;
  };

  return {
    name,
    onTurnStart() {
      turns.reset();
    },
    beforeCall(call, turn): BeforeCallDecision | void {
      const found = decide(call, 'before', turn);
      if (!found || found.rule.decision === 'allow') return;
      return { action: found.rule.decision as 'block' | 'halt' | 'ask', reason: found.reason };
    },
    afterCall(call, _result, turn): AfterCallResult | void {
      const found = decide(call, 'after', turn);
      if (!found || found.rule.decision === 'allow') return;
      return { action: found.rule.decision as 'warn' | 'halt', reason: found.reason };
    },
  };
}

function compileRule(rule: GuardrailRule): CompiledRule {
  return {
    rule,
    phase: rule.phase ?? (rule.decision === 'warn' ? 'after' : 'before'),
    matchesTool: picomatch(rule.tool),
    argumentPatterns: Object.entries(rule.arguments ?? {}).map(([argument, source]) => [argument, new RegExp(source)]),
    match: rule.match === undefined ? undefined : new RegExp(rule.match),
  };
}

function matches(entry: CompiledRule, call: ToolCallPart): boolean {
  if (!entry.matchesTool(call.name)) return false;
  // A throwing guardrail counts as allowing, so malformed arguments must not throw here.
  const args: Record<string, unknown> = call.arguments ?? {};
  for (const [argument, pattern] of entry.argumentPatterns) {
    const value = argumentText(args[argument]);
    if (value === undefined || !pattern.test(value)) return false;
  }
  return entry.match === undefined || entry.match.test(canonicalJson(args));
}

/** A string argument as is; anything else as canonical JSON; a missing one matches nothing. */
function argumentText(value: unknown): string | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : canonicalJson(value);
}
