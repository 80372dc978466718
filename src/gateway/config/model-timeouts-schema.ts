/**
 * `modelTimeouts` in `operator.json`: when a model call that sends nothing fails, for every
 * provider and each provider's own (their variables are read in `model-timeout-env.ts`).
 */
import * as z from 'zod';

/** The model providers whose timeouts `modelTimeouts` can set apart (those of `src/llm/model-client.ts`). */
export const modelProviders = ['anthropic', 'openai', 'gemini'] as const;

/** One of {@link modelProviders}. */
export type ModelProvider = (typeof modelProviders)[number];

/** The two limits of a model call, in seconds; `env` names the variables, `defaults` the defaults. */
const modelTimeoutFields = (scope: string, env: string, defaults: { firstByte: string; idle: string }) => ({
  firstByteSeconds: z
    .number()
    .positive()
    .max(3_600)
    .optional()
    .describe(`Longest wait for the first byte of a model response body, ${scope} (default: ${defaults.firstByte}). Env: OPERATOR_${env}_FIRST_BYTE_SECONDS.`),
  idleSeconds: z
    .number()
    .positive()
    .max(3_600)
    .optional()
    .describe(`Longest silence within a streamed model response, keep-alives counting as data, ${scope} (default: ${defaults.idle}). Env: OPERATOR_${env}_IDLE_SECONDS.`),
  notifyAfterSeconds: z
    .number()
    .positive()
    .max(3_600)
    .optional()
    .describe(
      `Seconds a model call may show nothing before the person is told the provider is slow and operator keeps trying, ${scope} (default: 15). Env: OPERATOR_${env}_NOTIFY_AFTER_SECONDS.`,
    ),
});

/** The `modelTimeouts` section. */
export const modelTimeoutsSchema = z
  .strictObject({
    ...modelTimeoutFields('for every provider', 'MODEL', { firstByte: 'Anthropic 60, OpenAI and Gemini 180', idle: 'Anthropic 60, OpenAI and Gemini 120' }),
    anthropic: z
      .strictObject(modelTimeoutFields('for Anthropic', 'ANTHROPIC', { firstByte: '60', idle: '60' }))
      .optional()
      .describe("Anthropic's own limits, over the ones for every provider."),
    openai: z
      .strictObject(modelTimeoutFields('for OpenAI and compatible servers', 'OPENAI', { firstByte: '180', idle: '120' }))
      .optional()
      .describe("OpenAI's own limits (reasoning models may think for minutes before the first chunk), over the ones for every provider."),
    gemini: z
      .strictObject(modelTimeoutFields("for Gemini (Google's OpenAI-compatible endpoint)", 'GEMINI', { firstByte: '180', idle: '120' }))
      .optional()
      .describe("Gemini's own limits (its thinking sends nothing before the first chunk, as OpenAI's reasoning models), over the ones for every provider."),
  })
  .prefault({})
  .describe('When a model call that sends nothing fails (as retryable: the turn tries again).');
