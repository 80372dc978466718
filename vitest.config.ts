import { cloudflareTest } from '@cloudflare/vitest-pool-workers';
import { defineConfig } from 'vitest/config';
import { chaosFiles, processFiles, workerFiles } from './test/suites.ts';

/**
 * Four projects in three groups, one group after another (vitest runs the projects of one
 * `groupOrder` together, with one worker count; see docs/development.md, "Tests"):
 * - `unit` (`npm run test:quick`) and `main`, together, three files at a time (this machine has two
 *   cores; a file of `main` often waits for a process, and a `unit` file fills that time):
 *   - `unit`: the files that start no process of their own (a start throws there, see
 *     `test/suites.ts`), sharing their workers' module graph (no per-file isolation: importing it
 *     again for every file was most of their time);
 *   - `main`: the files that start processes (the gateway, chromium, bubblewrap, redis-server,
 *     ...), with 60 s limits (a start starved of CPU beside two other files can take 20 s). They
 *     too share their workers' module graph: a fresh worker per file cost 1-2 s of CPU each,
 *     importing vitest, the fakes and the SDKs again. A file leaves nothing running behind it (its
 *     `afterAll` stops what it started), which they were written to do already;
 * - `workers`: the Worker's tests inside workerd, one file at a time (they share one set of fakes),
 *   all in one workerd and its storage (`isolate: false`: a workerd and the Worker's modules per
 *   file were most of their time; a test that counts what an object holds empties it first);
 * - `chaos`: the crash tests, last, their three files side by side (each run has its own fakes,
 *   home and gateway; most of their time is waiting for the gateway, which the other two fill). A
 *   preview left unfinished is judged by what the gateway noted and which process sent it, not by
 *   the clock (`test/chaos/chaos-previews.ts`), so a gateway starved by the others is not a fault.
 */
export default defineConfig({
  // Outside node_modules, so `npm ci` keeps it: vitest starts the files that took longest last
  // time first (without it, the largest), which keeps both cores busy to the end of a group.
  cacheDir: '.cache/vite',
  test: {
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/**/*.test.ts'], exclude: [...processFiles, ...chaosFiles, ...workerFiles], setupFiles: ['test/setup/no-child-processes.ts'], isolate: false, maxWorkers: 3, sequence: { groupOrder: 0 } } },
      { extends: true, test: { name: 'main', include: [...processFiles], exclude: [...chaosFiles, ...workerFiles], isolate: false, maxWorkers: 3, testTimeout: 60_000, hookTimeout: 60_000, sequence: { groupOrder: 0 } } },
      {
        // The fakes start in Node first (global set-up); the Worker is given their addresses.
        // A model call silent for 10 s is told to the person (slow-notice.test.ts waits that out, not 15 s);
        // shorter, and a first model call in a fresh isolate of workerd is sometimes that slow itself.
        plugins: [
          cloudflareTest(({ inject }) => ({
            wrangler: { configPath: './wrangler.toml' },
            miniflare: { bindings: { ...inject('fakeBindings'), TELEGRAM_WEBHOOK_SECRET: 'test-webhook-secret', OPERATOR_MODEL: 'claude-sonnet-4-6', OPERATOR_ADMINS: 'telegram:4242,slack:U0WRKTURN1', OPERATOR_WEB_TOKEN: 'test-web-token-0123456789abcdef', OPERATOR_MODEL_NOTIFY_AFTER_SECONDS: '10' } },
          })),
        ],
        test: { name: 'workers', include: [...workerFiles], testTimeout: 20_000, hookTimeout: 20_000, globalSetup: ['test/worker-setup/fakes-setup.ts'], fileParallelism: false, isolate: false, sequence: { groupOrder: 2 } },
      },
      { extends: true, test: { name: 'chaos', include: [...chaosFiles], maxWorkers: 3, sequence: { groupOrder: 3 } } },
    ],
  },
});
