/**
 * The kill switch's parts that the gateway (`gateway-spending.ts`) and the Worker
 * (`src/worker/spend-object.ts`) share: the refusal of a paused call, where the switch is kept,
 * and `/budget pause|resume`'s words, so a person reads the same on either.
 */
import { BudgetExhaustedError } from '../../core/errors.ts';

/** A model call refused because an admin paused them all; the turn's messages wait for the resume. */
export class SpendingPausedError extends BudgetExhaustedError {
  constructor() {
    super('Model calls are paused by an admin (/budget pause): this message is answered once they resume.', { paused: true });
  }
}

/** Where the kill switch is kept (the gateway's store; on Workers, the spend object's storage). */
export const pausedKey = 'budget-paused';

/** The line `/budget` starts with while calls are paused. */
export const pausedLine = 'Model calls are paused (/budget resume lets them go on).';

/** What `/budget pause|resume` acts on: the gateway's spending, or on Workers the bot's spend object. */
export interface KillSwitch {
  pause(): Promise<unknown>;
  resume(): Promise<unknown>;
}

/** `/budget pause` or `/budget resume` from an admin (`admin`), else the refusal; resolves to the reply. */
export async function killSwitchCommand(verb: 'pause' | 'resume', admin: boolean, killSwitch: KillSwitch): Promise<string> {
  if (!admin) return 'Only an admin can pause or resume model calls.';
  if (verb === 'pause') {
    await killSwitch.pause();
    return 'Paused all model calls: running turns stop at their next call, and messages wait until /budget resume.';
  }
  await killSwitch.resume();
  return 'Model calls go on; the messages that waited are answered now.';
}
