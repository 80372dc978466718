/** The warm gate: open once the warm-up's work settled, failed or not, or at the latest after its cap. */
import { describe, expect, it } from 'vitest';
import { warmGate } from '../../src/gateway/warm-gate.ts';

/** Whether `promise` has settled by the time the queued callbacks ran. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  return done;
}

describe('warmGate', () => {
  it('stays closed until it is given work, then opens once all of it settled, a failure included', async () => {
    const gate = warmGate();
    expect(await settled(gate.warmed)).toBe(false);
    let finish!: () => void;
    const slow = new Promise<void>((resolve) => (finish = resolve));
    gate.open([Promise.reject(new Error('a broken profile')), slow, undefined]);
    expect(await settled(gate.warmed)).toBe(false);
    finish();
    expect(await settled(gate.warmed)).toBe(true);
  });

  it('opens after its cap when the work hangs, so no channel stays deaf', async () => {
    const gate = warmGate(5);
    gate.open([new Promise<void>(() => {})]);
    await expect(gate.warmed).resolves.toBeUndefined();
  });
});
