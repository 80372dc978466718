/**
 * The chaos test: the real gateway process, killed with SIGKILL at random moments while it takes
 * and answers about 200 Telegram messages (follow-ups mixed in), by webhook and by long polling.
 * Every message is answered exactly once, in order per chat, and no preview is left unfinished.
 * A failure names its seed; `CHAOS_SEED=<n>` replays it. `npm run chaos` is the long run.
 */
import { describe, expect, it } from 'vitest';
import { describeChaos, runTelegramChaos, type ChaosOptions } from '../chaos/chaos-run.ts';

const seed = Number(process.env.CHAOS_SEED ?? Math.floor(Math.random() * 1_000_000));

describe('chaos: random kills of the gateway over Telegram', () => {
  for (const mode of ['webhook', 'polling'] as const) {
    it(`answers 200 messages exactly once, in order, through 5 kills (${mode})`, async () => {
      const options: ChaosOptions = { mode, messages: 200, chats: 24, kills: 5, seed, burstShare: 0.25 };
      const summary = await runTelegramChaos(options);
      const report = describeChaos(summary);
      expect(summary.kills, report).toBe(5);
      expect({ lost: summary.lost, twice: summary.twice, dangling: summary.dangling, other: summary.other, outOfOrder: summary.outOfOrder }, report).toEqual({
        lost: [],
        twice: [],
        dangling: [],
        other: [],
        outOfOrder: [],
      });
      expect(summary.once, report).toBe(200);
    }, 120_000);
  }

  for (const busyMode of ['steer', 'interrupt'] as const) {
    it(`answers every message once, in order, through kills with busyMode ${busyMode}`, async () => {
      const options: ChaosOptions = { mode: 'polling', messages: 80, chats: 8, kills: 3, seed: seed + 1, burstShare: 0.4, busyMode };
      const summary = await runTelegramChaos(options);
      const report = describeChaos(summary);
      expect({ lost: summary.lost, twice: summary.twice, dangling: summary.dangling, other: summary.other, outOfOrder: summary.outOfOrder }, report).toEqual({
        lost: [],
        twice: [],
        dangling: [],
        other: [],
        outOfOrder: [],
      });
    }, 120_000);
  }
});
