/**
 * When the gateway is warm: what every first answer needs (the agent's modules, the default
 * profile's resources, the model SDK) has loaded. The platforms' formatters warm a second later,
 * off this gate: a plain one-line reply needs none (see `telegram/format/plain-reply.ts`). A channel that asks
 * its platform for messages (Telegram's long polling) asks once the gate is open, so the first
 * message it takes is answered without loading anything first; a channel that is sent messages
 * (webhooks, websockets) takes them at once, and their turns load what they need.
 *
 * The warm-up starts as soon as the runtime is made and runs alongside the rest of the start,
 * in its waits (bubblewrap's check, the platforms' first calls); the gate is opened once the
 * gateway is ready, so no message is taken before.
 */

/** A gate {@link WarmGate.open | opened} by the warm-up's work. */
export interface WarmGate {
  /** Resolves once the work given to {@link open} settled, or at the latest `capMs` after it was given. */
  readonly warmed: Promise<void>;
  /**
   * Opens the gate once every piece of `work` settled, failed or not (a failure shows on first use
   * instead), or after `capMs`, whichever is first: a warm-up that hangs never keeps a channel deaf.
   */
  open(work: readonly (Promise<unknown> | undefined)[]): void;
}

/** A closed gate; see {@link WarmGate}. */
export function warmGate(capMs = 10_000): WarmGate {
  let resolve!: () => void;
  const warmed = new Promise<void>((done) => (resolve = done));
  return {
    warmed,
    open(work) {
      const cap = setTimeout(resolve, capMs);
      cap.unref();
      void Promise.allSettled(work).then(() => {
        clearTimeout(cap);
        resolve();
      });
    },
  };
}
