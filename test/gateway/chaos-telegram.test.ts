/**
 * The chaos test: the real gateway process, killed with SIGKILL at random moments while it takes
 * and answers about 200 Telegram direct messages over 24 chats (follow-ups that arrive while the
 * answer before them streams mixed in), by webhook and by long polling, and with fewer messages
 * under the busy modes steer and interrupt. Every message must be acknowledged and answered
 * exactly once, in order per chat, with no preview left unfinished but one whose id the killed
 * process never heard (see `chaos-previews.ts`). A failure names its seed;
 * `CHAOS_SEED=<n>` replays it; `CHAOS_REPORT=1` prints every run's figures, `CHAOS_DEBUG=1` also
 * every chat, call and process output.
 * `npm run chaos` is the long run over every platform.
 */
import { describe, expect, it } from 'vitest';
import { describeChaos, isClean, runTelegramChaos, type ChaosOptions, type ChaosSummary } from '../chaos/chaos-run.ts';

const seed = Number(process.env.CHAOS_SEED ?? Math.floor(Math.random() * 1_000_000));

/** Every message taken and answered once, nothing else wrong; the message says what was found and how to replay it. */
function expectClean(summary: ChaosSummary, kills: number): void {
  const report = describeChaos(summary);
  if (process.env.CHAOS_REPORT || process.env.CHAOS_DEBUG) console.log(report);
  if (process.env.CHAOS_DEBUG && summary.debug) console.log(JSON.stringify(summary.debug, null, 1));
  expect(summary.kills, report).toBe(kills);
  expect({ acknowledged: summary.acknowledged, once: summary.once, clean: isClean(summary) }, report).toEqual({ acknowledged: summary.sent, once: summary.sent, clean: true });
}

describe('chaos: random SIGKILLs of the gateway over Telegram', () => {
  for (const mode of ['webhook', 'polling'] as const) {
    it(`answers 200 messages exactly once, in order, with no preview left, through 5 kills (${mode})`, async () => {
      const options: ChaosOptions = { mode, messages: 200, chats: 24, kills: 5, seed };
      expectClean(await runTelegramChaos(options), 5);
    }, 90_000);
  }

  for (const busyMode of ['steer', 'interrupt'] as const) {
    it(`answers every message once, in order, through 3 kills with busyMode ${busyMode}`, async () => {
      const options: ChaosOptions = { mode: 'polling', messages: 80, chats: 8, kills: 3, seed: seed + 1, burstShare: 0.4, busyMode };
      expectClean(await runTelegramChaos(options), 3);
    }, 90_000);
  }
});
