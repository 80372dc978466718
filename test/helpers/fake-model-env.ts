/** The environment that points a process's Anthropic SDK at the fake model server. */
import type { FakeModelServer } from '../fakes/fake-model-server.ts';

/**
 * The API key processes under test are given. Tests check that it never shows in what people
 * see, so they should name it through this constant rather than repeat it.
 */
export const fakeAnthropicKey = 'sk-ant-test';

/** ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL for a process that should talk to `model`. */
export function fakeAnthropicEnv(model: FakeModelServer): Record<string, string> {
  return { ANTHROPIC_API_KEY: fakeAnthropicKey, ANTHROPIC_BASE_URL: model.anthropicBaseURL };
}
