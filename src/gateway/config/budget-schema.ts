/**
 * `budgets` in operator.json: spending caps in US dollars, from the model catalog's prices. Each is
 * optional; unset means no cap, except the safe defaults: a person who is not an admin 1 a day, a
 * group conversation 5 a day. Admins have no person cap, and the gateway, jobs and pipeline runs
 * none, unless set.
 */
import * as z from 'zod';

const dollars = z.number().min(0).max(1_000_000);

/** The `budgets` section. */
export const budgetsSchema = z
  .strictObject({
    gateway: z.strictObject({ day: dollars.optional(), month: dollars.optional() }).prefault({}).describe('Everything the gateway spends, per UTC day and month.'),
    conversation: z
      .strictObject({ day: dollars.optional() })
      .prefault({})
      .describe('Everything done in one conversation per UTC day: turns, the reviewer, the memory flush, subagents. Default for groups: 5.'),
    person: z.strictObject({ day: dollars.optional() }).prefault({}).describe('One person across all their conversations, per UTC day. Default for people who are not admins: 1; admins none.'),
    job: z
      .strictObject({ run: dollars.optional(), day: dollars.optional() })
      .prefault({})
      .describe("Each scheduled job: one run, and all its runs in a UTC day. A run that would pass the day's cap is skipped with a notice. Default: none."),
    pipelineRun: z.strictObject({ run: dollars.optional() }).prefault({}).describe('Each pipeline run, all its nodes together. Default: none.'),
    botTurns: z
      .int()
      .min(1)
      .max(100)
      .default(5)
      .describe("Where a platform allows other bots' messages (allowBots): how many in a row one conversation takes before a person writes again. A platform's own botTurns takes its place."),
    warnAt: z.number().gt(0).max(1).default(0.8).describe('The share of a cap at which the conversation is told, once a day.'),
  })
  .prefault({})
  .describe('Spending caps in US dollars, checked before every model call (see docs/budgets.md).');

/** What `budgets` holds once read. */
export type BudgetsConfig = z.infer<typeof budgetsSchema>;

/** The defaults in force when operator.json sets none. */
export const defaultBudgets = { personDay: 1, groupDay: 5 } as const;

/** A profile's caps (`profileSettings.NAME.budgets`): a conversation's and a person's, in place of the top-level ones. */
export const profileBudgetsSchema = z.strictObject({
  conversation: z.strictObject({ day: dollars.optional() }).optional(),
  person: z.strictObject({ day: dollars.optional() }).optional(),
  job: z.strictObject({ run: dollars.optional(), day: dollars.optional() }).optional(),
  pipelineRun: z.strictObject({ run: dollars.optional() }).optional(),
  warnAt: z.number().gt(0).max(1).optional(),
});

/** What a profile's `budgets` holds. */
export type ProfileBudgets = z.infer<typeof profileBudgetsSchema>;

/**
 * The caps of a conversation (or a job, or a pipeline run) of a profile with `override`: each cap
 * the profile sets in place of the top-level one, the others as at the top. The gateway's caps and
 * `botTurns` are the gateway's alone.
 */
export function budgetsFor(budgets: BudgetsConfig, override: ProfileBudgets | undefined): BudgetsConfig {
  if (!override) return budgets;
  return {
    ...budgets,
    conversation: override.conversation?.day === undefined ? budgets.conversation : { day: override.conversation.day },
    person: override.person?.day === undefined ? budgets.person : { day: override.person.day },
    job: { ...budgets.job, ...definedOf(override.job ?? {}) },
    pipelineRun: override.pipelineRun?.run === undefined ? budgets.pipelineRun : { run: override.pipelineRun.run },
    warnAt: override.warnAt ?? budgets.warnAt,
  };
}

/** `values` without its undefined entries (a profile's unset cap leaves the top-level one). */
function definedOf<T extends object>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/** Where the caps are configured: the top-level `budgets` and each profile's own (`profileSettings.NAME.budgets`). */
export interface BudgetSettings {
  budgets: BudgetsConfig;
  profileSettings: Readonly<Record<string, { budgets?: ProfileBudgets }>>;
}

/** The caps of `profile`'s conversations as `settings` configure them now (the top-level ones for none). */
export function configuredBudgets(settings: BudgetSettings): (profile?: string) => BudgetsConfig {
  return (profile) => budgetsFor(settings.budgets, profile === undefined ? undefined : settings.profileSettings[profile]?.budgets);
}

/** The profiles that set caps of their own, by name. */
export function profilesWithOwnCaps(settings: BudgetSettings): string[] {
  return Object.keys(settings.profileSettings).filter((name) => settings.profileSettings[name]?.budgets !== undefined);
}
