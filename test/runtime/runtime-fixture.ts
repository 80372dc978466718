/**
 * A runtime per test over a temporary OPERATOR_HOME, its models answered by the fake model server
 * (Anthropic, and OpenAI with a key), the browser off: what the runtime tests share.
 */
import { afterAll, afterEach, beforeAll } from 'vitest';
import { defaultBrowserSettings } from '../../src/browser/browser-settings.ts';
import { Runtime, type RuntimeOptions } from '../../src/runtime/runtime.ts';
import { startFakeModelServer, type FakeModelServer } from '../fakes/fake-model-server.ts';
import { fakeAnthropicEnv } from '../helpers/fake-model-env.ts';
import { createTempHome, removeTempHome } from '../helpers/temp-home.ts';

/** The file's fake server, and a way to start this test's runtime. */
export interface RuntimeFixture {
  /** Set in `beforeAll`. */
  server: FakeModelServer;
  /** This test's OPERATOR_HOME, made on first use (by {@link RuntimeFixture.start} or before it). */
  home(): string;
  /** The test's runtime (closed after it) with `options` over the fixture's environment. */
  start(options?: Omit<RuntimeOptions, 'env'>): Runtime;
  /** The runtime this test started, if it did. */
  current(): Runtime | undefined;
}

/** Registers the hooks of a runtime test file; the runtime and home of each test are removed after it. */
export function useRuntimeFixture(): RuntimeFixture {
  let home: string | undefined;
  let runtime: Runtime | undefined;
  const fixture = {
    home: () => (home ??= createTempHome()),
    current: () => runtime,
    start(options: Omit<RuntimeOptions, 'env'> = {}) {
      const folder = fixture.home();
      runtime = new Runtime({
        env: { OPERATOR_HOME: folder, HOME: folder, OPERATOR_REVIEW_EVERY: '0', ...fakeAnthropicEnv(fixture.server), OPENAI_API_KEY: 'sk-test-openai', OPENAI_BASE_URL: fixture.server.openaiBaseURL },
        browser: { base: { ...defaultBrowserSettings, enabled: false }, profiles: {} },
        ...options,
      });
      return runtime;
    },
  } as RuntimeFixture;
  beforeAll(async () => {
    fixture.server = await startFakeModelServer();
  });
  afterAll(() => fixture.server.close());
  afterEach(async () => {
    await runtime?.close();
    runtime = undefined;
    removeTempHome(home);
    home = undefined;
    fixture.server.reset();
  });
  return fixture;
}
