/**
 * The console's usage page: tokens and cost per day, per profile and per conversation over the
 * last days, from the usage ledger, with the background reviewer's share apart, and the charts.
 */
import { stackedBarChart } from './usage-chart.ts';
import { dayOf, type UsageLedger, type UsageRow } from './usage-ledger.ts';

/** Tokens, cost and turns of one slice of usage. */
export interface UsageTotals {
  turns: number;
  calls: number;
  tokens: number;
  costUsd: number;
  /** The background reviewer's share of `tokens` and `costUsd`. */
  reviewTokens: number;
  reviewCostUsd: number;
}

/** What {@link summarizeUsage} answers. */
export interface UsageSummary {
  from: string;
  to: string;
  total: UsageTotals;
  days: (UsageTotals & { day: string })[];
  profiles: (UsageTotals & { profile: string })[];
  /** The conversations that cost most (tokens when no cost is known), at most 100. */
  conversations: (UsageTotals & { conversation: string; platform: string; profiles: string[] })[];
  /** Inline SVG: cost and tokens per day, turns and reviews stacked. */
  charts: { cost: string; tokens: string };
}

/** Usage of the last `days` days (1 to the ledger's retention), today included, days in UTC. */
export async function summarizeUsage(ledger: UsageLedger, days: number, now: number = Date.now()): Promise<UsageSummary> {
  const span = Math.min(Math.max(1, Math.floor(days)), 366);
  const dayList = Array.from({ length: span }, (_, index) => dayOf(now - (span - 1 - index) * 86_400_000));
  const rows = await ledger.rows({ from: dayList[0]!, to: dayList.at(-1)! });
  const byDay = new Map(dayList.map((day) => [day, empty()]));
  const byProfile = new Map<string, UsageTotals>();
  const byConversation = new Map<string, UsageTotals & { platform: string; profiles: Set<string> }>();
  const total = empty();
  for (const row of rows) {
    add(total, row);
    add(byDay.get(row.day) ?? empty(), row);
    add(entry(byProfile, row.profile, empty), row);
    const conversation = entry(byConversation, row.conversation, () => ({ ...empty(), platform: row.platform, profiles: new Set<string>() }));
    conversation.profiles.add(row.profile);
    add(conversation, row);
  }
  const dayTotals = [...byDay].map(([day, totals]) => ({ day, ...totals }));
  const rank = (a: UsageTotals, b: UsageTotals) => b.costUsd - a.costUsd || b.tokens - a.tokens;
  return {
    from: dayList[0]!,
    to: dayList.at(-1)!,
    total,
    days: dayTotals,
    profiles: [...byProfile].map(([profile, totals]) => ({ profile, ...totals })).sort(rank),
    conversations: [...byConversation]
      .map(([conversation, { profiles, ...totals }]) => ({ conversation, ...totals, profiles: [...profiles].sort() }))
      .sort(rank)
      .slice(0, 100),
    charts: {
      cost: stackedBarChart({
        title: 'Cost per day (USD)',
        days: dayList,
        series: [
          { label: 'turns and subagents', className: 'series-turns', values: dayTotals.map((day) => day.costUsd - day.reviewCostUsd) },
          { label: 'memory reviews', className: 'series-reviews', values: dayTotals.map((day) => day.reviewCostUsd) },
        ],
        format: (value) => `$${value < 1 ? value.toFixed(value === 0 ? 0 : 3) : value.toFixed(2)}`,
      }),
      tokens: stackedBarChart({
        title: 'Tokens per day',
        days: dayList,
        series: [
          { label: 'turns and subagents', className: 'series-turns', values: dayTotals.map((day) => day.tokens - day.reviewTokens) },
          { label: 'memory reviews', className: 'series-reviews', values: dayTotals.map((day) => day.reviewTokens) },
        ],
        format: compactNumber,
      }),
    },
  };
}

function empty(): UsageTotals {
  return { turns: 0, calls: 0, tokens: 0, costUsd: 0, reviewTokens: 0, reviewCostUsd: 0 };
}

function add(totals: UsageTotals, row: UsageRow): void {
  const tokens = row.input + row.output + row.cacheRead + row.cacheWrite;
  totals.turns += row.turns;
  totals.calls += row.calls;
  totals.tokens += tokens;
  totals.costUsd += row.costUsd;
  if (row.kind === 'review') {
    totals.reviewTokens += tokens;
    totals.reviewCostUsd += row.costUsd;
  }
}

function entry<T>(map: Map<string, T>, key: string, make: () => T): T {
  let value = map.get(key);
  if (value === undefined) map.set(key, (value = make()));
  return value;
}

/** `950`, `12.3k`, `4.5M`. */
function compactNumber(value: number): string {
  if (value >= 1e6) return `${(value / 1e6).toFixed(1)}M`;
  if (value >= 1e3) return `${(value / 1e3).toFixed(1)}k`;
  return String(Math.round(value));
}
