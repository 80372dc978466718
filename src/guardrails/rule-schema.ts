/**
 * The shape of a declarative guardrail file (`guardrails/<name>.yaml|.yml|.json`), validated with
 * zod so every mistake is reported with its path (`rules[2].decision`). See README.md.
 */
import * as z from 'zod';

/** What a rule decides when it triggers. */
export const ruleDecisions = ['block', 'halt', 'ask', 'warn', 'allow'] as const;

const regexSource = z.string().superRefine((source, context) => {
  try {
    new RegExp(source);
  } catch (error) {
    context.addIssue({ code: 'custom', message: (error as Error).message });
  }
});

const ruleSchema = z
  .strictObject({
    tool: z
      .string({ error: (issue) => (issue.input === undefined ? 'required: a tool name or a glob such as "*_file"' : undefined) })
      .min(1, 'must name a tool or a glob such as "*_file"'),
    arguments: z.record(z.string(), regexSource).optional(),
    match: regexSource.optional(),
    decision: z.enum(ruleDecisions, {
      error: (issue) =>
        issue.input === undefined ? `required: one of ${ruleDecisions.join(', ')}` : `unknown decision ${JSON.stringify(issue.input)}: use one of ${ruleDecisions.join(', ')}`,
    }),
    reason: z.string().min(1).optional(),
    maxCallsPerTurn: z.number().int().min(0).optional(),
    phase: z.enum(['before', 'after']).optional(),
  })
  .superRefine((rule, context) => {
    if (rule.reason === undefined && rule.decision !== 'allow') {
      context.addIssue({ code: 'custom', path: ['reason'], message: `a ${rule.decision} rule needs a reason (the model and the person read it)` });
    }
    if (rule.decision === 'warn' && rule.phase === 'before') {
      context.addIssue({ code: 'custom', path: ['phase'], message: 'warn applies after a call: use phase "after" or leave phase out' });
    }
    if ((rule.decision === 'block' || rule.decision === 'ask') && rule.phase === 'after') {
      context.addIssue({ code: 'custom', path: ['phase'], message: `${rule.decision} can only apply before a call: use phase "before" or leave phase out` });
    }
  });

/** A whole guardrail file. */
export const guardrailFileSchema = z.strictObject({
  description: z.string().optional(),
  rules: z.array(ruleSchema),
});

/** One rule as written in a file. */
export type GuardrailRule = z.infer<typeof ruleSchema>;

/** A guardrail file's content. */
export type GuardrailFile = z.infer<typeof guardrailFileSchema>;
