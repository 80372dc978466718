/**
 * Suites that need a program the machine may lack (chromium, redis-server). Where it is missing
 * they must not pass unnoticed: under CI (`CI` set), where it must be installed, a stand-in test
 * fails and says how to install it; elsewhere a skipped test gives the reason in its name and the
 * console warns.
 */
import { describe, it } from 'vitest';

/** What a suite needs, in the words the stand-in test uses. */
export interface NeededProgram {
  /** The suite's name, which the stand-in suite takes too. */
  suite: string;
  /** The program as the messages name it: `/usr/bin/chromium`, `redis-server on PATH`. */
  program: string;
  /** The command that installs it: `apt-get install -y chromium`. */
  install: string;
  /** What does not run without it: `the browser test of the web chat`. */
  runs: string;
}

/**
 * Calls `declare` with `found` (the program's path, say) to declare the real suite when `found`
 * is defined; otherwise declares the stand-in described above.
 */
export function whenInstalled<T>(found: T | undefined, needed: NeededProgram, declare: (found: T) => void): void {
  if (found !== undefined) {
    declare(found);
    return;
  }
  const missing = `${needed.program} is missing`;
  if (process.env.CI) {
    describe(needed.suite, () => {
      it(`needs ${needed.program} in CI`, () => {
        throw new Error(`${missing}: CI must install it (${needed.install}) so ${needed.runs} runs`);
      });
    });
    return;
  }
  console.warn(`${missing}: ${needed.runs} is SKIPPED`);
  describe(needed.suite, () => {
    it.skip(`SKIPPED: ${missing} (${needed.install} to run it; under CI this fails)`, () => {});
  });
}
