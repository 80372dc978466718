/** The chaos tests' verdict on a run, as a vitest assertion. */
import { expect } from 'vitest';
import { describeChaos, isClean, type ChaosSummary } from './chaos-run.ts';

/** The seed of a run: `CHAOS_SEED` when set (a replay), else a random one the failure names. */
export const chaosSeed = Number(process.env.CHAOS_SEED ?? Math.floor(Math.random() * 1_000_000));

/**
 * Every message taken and answered once, nothing else wrong, after `kills` kills; the failure
 * says what was found and how to replay it. `CHAOS_REPORT=1` prints the run's figures,
 * `CHAOS_DEBUG=1` also every chat, call and process output.
 */
export function expectClean(summary: ChaosSummary, kills: number): void {
  const report = describeChaos(summary);
  if (process.env.CHAOS_REPORT || process.env.CHAOS_DEBUG) console.log(report);
  if (process.env.CHAOS_DEBUG && summary.debug) console.log(JSON.stringify(summary.debug, null, 1));
  expect(summary.kills, report).toBe(kills);
  expect({ acknowledged: summary.acknowledged, once: summary.once, clean: isClean(summary) }, report).toEqual({ acknowledged: summary.sent, once: summary.sent, clean: true });
}
