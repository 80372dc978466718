import { cloudflareTest } from '@cloudflare/vitest-pool-workers';
import { defineConfig } from 'vitest/config';

/**
 * Two groups: everything else in parallel, then the chaos tests alone. The chaos tests kill the
 * gateway at random moments and count a preview the platform took more than 100 ms before a kill
 * as a fault; on a machine busy with the rest of the suite (language servers, chromium, Xvfb) the
 * gateway can be starved for longer than that, which is the machine's, not the gateway's.
 */
const chaos = ['test/gateway/chaos-*.test.ts'];
/** The Worker's tests run inside workerd (the Workers runtime), through the Workers pool. */
const worker = ['test/worker/**/*.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'main', include: ['test/**/*.test.ts'], exclude: [...chaos, ...worker], sequence: { groupOrder: 0 } } },
      {
        // The fakes start in Node first (global set-up); the Worker is given their addresses.
        // A model call silent for 2 s is told to the person (slow-notice.test.ts waits that out, not 15 s).
        plugins: [
          cloudflareTest(({ inject }) => ({
            wrangler: { configPath: './wrangler.toml' },
            miniflare: { bindings: { ...inject('fakeBindings'), TELEGRAM_WEBHOOK_SECRET: 'test-webhook-secret', OPERATOR_MODEL: 'claude-sonnet-4-6', OPERATOR_ADMINS: 'telegram:4242,slack:U0WRKTURN1', OPERATOR_WEB_TOKEN: 'test-web-token-0123456789abcdef', OPERATOR_MODEL_NOTIFY_AFTER_SECONDS: '2' } },
          })),
        ],
        test: { name: 'workers', include: worker, testTimeout: 20_000, hookTimeout: 20_000, globalSetup: ['test/worker-setup/fakes-setup.ts'], sequence: { groupOrder: 0 } },
      },
      { extends: true, test: { name: 'chaos', include: chaos, fileParallelism: false, sequence: { groupOrder: 1 } } },
    ],
  },
});
