/**
 * The chaos test under the busy modes steer and interrupt: the real gateway process, killed with
 * SIGKILL at random moments while it answers 80 Telegram direct messages over 8 chats by long
 * polling, with many follow-ups arriving while the answer before them streams (taken into the
 * running turn, or stopping it). Every message must be answered exactly once, in order, with no
 * preview left but one whose id the killed process never heard; under interrupt an answer a newer
 * message stopped counts as that message's answer. `CHAOS_SEED=<n>` replays a failure.
 */
import { describe, it } from 'vitest';
import { runTelegramChaos } from '../chaos/chaos-run.ts';
import { chaosSeed, expectClean } from '../chaos/expect-clean.ts';

describe('chaos: random SIGKILLs of the gateway over Telegram, busy modes', () => {
  for (const busyMode of ['steer', 'interrupt'] as const) {
    it(`answers every message once, in order, through 3 kills with busyMode ${busyMode}`, async () => {
      expectClean(await runTelegramChaos({ mode: 'polling', messages: 80, chats: 8, kills: 3, seed: chaosSeed, burstShare: 0.4, busyMode }), 3);
    }, 90_000);
  }
});
