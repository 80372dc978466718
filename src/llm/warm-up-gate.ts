/**
 * Lets a process hold back background SDK loads (`LazyProvider.warm`) while it starts. A
 * vendor SDK takes a few hundred milliseconds of CPU to import, all of it on the main thread: the
 * gateway constructs its runtime (which warms the provider) before its channels are up, and an
 * SDK loading meanwhile would push readiness back. Model calls never wait for the gate.
 */
let gate: Promise<void> = Promise.resolve();

/**
 * Holds warm-ups until the returned function is called; holds add up, so warm-ups wait for every
 * one to be released. Releasing twice does nothing more.
 *
 * @example
 * const release = holdWarmUps();
 * const runtime = new Runtime({ env });  // its provider's warm() waits
 * await gateway.start();
 * release();                            // the SDK loads now, after start-up
 */
export function holdWarmUps(): () => void {
  let release!: () => void;
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  gate = Promise.all([gate, released]).then(() => undefined);
  return release;
}

/** Resolves once no hold taken so far is in place (at once when there is none). */
export function warmUpsAllowed(): Promise<void> {
  return gate;
}
