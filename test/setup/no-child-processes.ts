/**
 * Set-up of the `unit` project (`npm run test:quick`, and the same files in `npm test`): a test
 * there may not start a process of its own (the gateway, chromium, bubblewrap, redis-server, a language server, Xvfb, workerd).
 * Every way Node starts one throws here, naming the file list to move the test file to, so a
 * file that needs a process fails loudly instead of slowing the quick run down unseen.
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';

const starters = ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'] as const;

for (const name of starters) {
  Object.defineProperty(childProcess, name, {
    configurable: true,
    writable: true,
    value: (command: unknown) => {
      throw new Error(`a unit test (npm run test:quick) starts no process, but this one did (${name} ${String(command)}): list its file in test/suites.ts (processFiles)`);
    },
  });
}
// ESM `import { spawn } from 'node:child_process'` reads the patched functions from here on.
syncBuiltinESMExports();
