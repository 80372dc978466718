/**
 * The chaos test: the real gateway process, killed with SIGKILL at random moments while it takes
 * and answers about 200 Telegram direct messages over 24 chats (follow-ups that arrive while the
 * answer before them streams mixed in), by webhook and by long polling. Every message must be
 * acknowledged and answered exactly once, in order per chat, with no preview left unfinished but
 * one whose id the killed process never heard (see `chaos-previews.ts`). A failure names its
 * seed; `CHAOS_SEED=<n>` replays it; `CHAOS_REPORT=1` prints every run's figures, `CHAOS_DEBUG=1`
 * also every chat, call and process output. The busy modes steer and interrupt are
 * `chaos-telegram-busy.test.ts`; `npm run chaos` is the long run over every platform.
 */
import { describe, it } from 'vitest';
import { runTelegramChaos } from '../chaos/chaos-run.ts';
import { chaosSeed, expectClean } from '../chaos/expect-clean.ts';

describe('chaos: random SIGKILLs of the gateway over Telegram', () => {
  for (const mode of ['webhook', 'polling'] as const) {
    it(`answers 200 messages exactly once, in order, with no preview left, through 5 kills (${mode})`, async () => {
      expectClean(await runTelegramChaos({ mode, messages: 200, chats: 24, kills: 5, seed: chaosSeed }), 5);
    }, 90_000);
  }
});
