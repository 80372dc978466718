/**
 * The chaos test: the real gateway process, killed with SIGKILL at random moments while it takes
 * and answers about 200 Telegram messages (follow-ups mixed in), by webhook and by long polling.
 * Every message is answered exactly once, in order per chat, and no preview is left unfinished.
 * A failure names its seed; `CHAOS_SEED=<n>` replays it. `npm run chaos` is the long run.
 */
import { describe, expect, it } from 'vitest';
import { describeChaos, runTelegramChaos, type ChaosOptions, type ChaosSummary } from '../chaos/chaos-run.ts';

const seed = Number(process.env.CHAOS_SEED ?? Math.floor(Math.random() * 1_000_000));

/** Nothing lost, nothing twice, no preview left, no order broken; the report says what was found. */
function expectClean(summary: ChaosSummary): void {
  const { lost, twice, dangling, other, outOfOrder } = summary;
  expect({ lost, twice, dangling, other, outOfOrder }, describeChaos(summary)).toEqual({ lost: [], twice: [], dangling: [], other: [], outOfOrder: [] });
}

describe('chaos: random kills of the gateway over Telegram', () => {
  for (const mode of ['webhook', 'polling'] as const) {
    it(`answers 200 messages exactly once, in order, through 5 kills (${mode})`, async () => {
      const options: ChaosOptions = { mode, messages: 200, chats: 24, kills: 5, seed, burstShare: 0.25 };
      const summary = await runTelegramChaos(options);
      expect(summary.kills, describeChaos(summary)).toBe(5);
      expectClean(summary);
      expect(summary.once, describeChaos(summary)).toBe(200);
    }, 120_000);
  }

  for (const busyMode of ['steer', 'interrupt'] as const) {
    it(`answers every message once, in order, through kills with busyMode ${busyMode}`, async () => {
      const options: ChaosOptions = { mode: 'polling', messages: 80, chats: 8, kills: 3, seed: seed + 1, burstShare: 0.4, busyMode };
      expectClean(await runTelegramChaos(options));
    }, 120_000);
  }
});
