/** How a chaos run is judged and reported: one summary line with its details, and a table of runs. */
import type { ChaosSummary } from './chaos-driver.ts';

/**
 * Whether the run kept the promise: no acknowledged message lost, none answered twice, no preview
 * left unfinished (orphaned ones apart), no stray bot message, every chat in order. Over Telegram,
 * which keeps an update until the gateway takes it, every message must also have been taken.
 */
export function isClean(summary: ChaosSummary): boolean {
  const unaccepted = summary.platform.startsWith('Telegram') ? summary.notAccepted.length : 0;
  return summary.lost.length + summary.twice.length + summary.dangling.length + summary.other.length + summary.outOfOrder.length + unaccepted === 0;
}

/** A one-line summary and the details of what went wrong, for a failed assertion or a report. */
export function describeChaos(summary: ChaosSummary): string {
  const { options } = summary;
  const gaps = summary.orphanGapsMs.length > 0 ? ` (taken ${Math.min(...summary.orphanGapsMs)}–${Math.max(...summary.orphanGapsMs)} ms before their kill)` : '';
  const head =
    `${summary.platform}, busyMode ${options.busyMode ?? 'followUp'}, seed ${options.seed} (CHAOS_SEED=${options.seed}): ` +
    `${summary.sent} messages in ${options.chats} chats, ${summary.acknowledged} acknowledged, ${summary.kills} kills; ` +
    `${summary.once} answered once, ${summary.lost.length} lost, ${summary.twice.length} twice, ` +
    `${summary.dangling.length} dangling previews, ${summary.orphaned.length} previews orphaned by a kill${gaps}, ` +
    `${summary.other.length} other bot messages, ${summary.outOfOrder.length} chats out of order, ` +
    `${summary.notAccepted.length} never accepted and unanswered, ${summary.inFlight.length} in flight at a kill and unanswered, ` +
    `${summary.stopped} answers stopped by a newer message; ${summary.redeliveries} redeliveries; ${summary.wallMs} ms`;
  const list = (label: string, items: readonly string[], limit: number, separator = ', ') =>
    items.length > 0 ? `${label}: ${items.slice(0, limit).join(separator)}${items.length > limit ? ` (+${items.length - limit})` : ''}` : '';
  const details = [
    list('lost', summary.lost.map((token) => (token in summary.lostBeforeKillMs ? `${token} (went out ${summary.lostBeforeKillMs[token]} ms before a kill)` : token)), 20),
    list('twice', summary.twice, 20),
    list('dangling', summary.dangling, 5, ' | '),
    list('orphaned', summary.orphaned, 5, ' | '),
    list('other', summary.other, 5, ' | '),
    list('out of order', summary.outOfOrder, 10),
    list('never accepted', summary.notAccepted, 10),
    list('in flight at a kill', summary.inFlight, 10),
    summary.deliveryNotes ?? '',
    summary.gatewayProblems.length > 0 ? `gateway said: ${summary.gatewayProblems.join(' | ')}` : '',
  ].filter((line) => line !== '');
  return [head, ...details].join('\n');
}

/** A Markdown table of runs, one row each. */
export function chaosTable(summaries: readonly ChaosSummary[]): string {
  const head = ['platform', 'busyMode', 'sent', 'acknowledged', 'answered once', 'lost', 'twice', 'dangling previews', 'orphaned previews', 'other bot messages', 'chats out of order', 'not accepted', 'in flight at a kill', 'kills', 'redeliveries', 'wall time'];
  const rows = summaries.map((summary) => [
    summary.platform,
    summary.options.busyMode ?? 'followUp',
    summary.sent,
    summary.acknowledged,
    summary.once,
    summary.lost.length,
    summary.twice.length,
    summary.dangling.length,
    summary.orphaned.length,
    summary.other.length,
    summary.outOfOrder.length,
    summary.notAccepted.length,
    summary.inFlight.length,
    summary.kills,
    summary.redeliveries,
    `${(summary.wallMs / 1000).toFixed(0)} s`,
  ]);
  return [head, head.map(() => '---'), ...rows].map((cells) => `| ${cells.join(' | ')} |`).join('\n');
}
