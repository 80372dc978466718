/**
 * `profileSettings.<profile>.modelRequest` in `operator.json`: sampling, stop sequences, tags and
 * provider options of every model call of the profile's conversations (see `ModelRequest` in
 * `src/llm/types.ts` for what each provider does with them).
 */
import * as z from 'zod';
import type { RequestOptions } from '../../llm/types.ts';
import { modelProviders } from './model-timeouts-schema.ts';

/** Body fields no provider option may set (the request's own), refused here rather than at the first call. */
const ownedFields = ['model', 'messages', 'system', 'tools', 'stream', 'stream_options'];

const providerOptions = z
  .record(z.string(), z.unknown())
  .refine((options) => !Object.keys(options).some((key) => ownedFields.includes(key)), {
    message: `may not set ${ownedFields.join(', ')} (operator sets them)`,
  });

/** The `modelRequest` section of a profile. */
export const modelRequestSchema = z
  .strictObject({
    temperature: z.number().min(0).max(2).optional().describe("Sampling temperature. Not sent to Claude (its API has no sampling parameters) nor to OpenAI's reasoning models."),
    topP: z.number().gt(0).max(1).optional().describe('Nucleus sampling (top_p) for OpenAI and Gemini; not sent to Claude nor to OpenAI\'s reasoning models.'),
    stopSequences: z
      .array(z.string().min(1))
      .max(4)
      .optional()
      .describe("Texts that end the answer where the model writes them (at most 4). Not sent to OpenAI's reasoning models."),
    tags: z
      .record(z.string().min(1).max(64), z.string().max(512))
      .refine((tags) => Object.keys(tags).length <= 16, { message: 'at most 16 tags' })
      .optional()
      .describe("Key-value tags of every call: OpenAI's metadata, sent only with providerOptions.openai.store true (OpenAI stores the call then). Claude and Gemini take none."),
    sendPersonId: z
      .boolean()
      .optional()
      .describe(
        "Send each turn's person to the provider as an opaque id (an HMAC of the platform id under a key kept in the store): Claude's metadata.user_id, OpenAI's safety_identifier, for tracing abuse to one person. Default false.",
      ),
    providerOptions: z
      .partialRecord(z.enum(modelProviders), providerOptions)
      .optional()
      .describe('Request body fields as each provider\'s API spells them, e.g. {"openai": {"service_tier": "flex"}}. Each provider reads its own entry.'),
  })
  .describe("Sampling, stop sequences, tags and provider options of this profile's model calls (docs/models.md).");

/** The section as parsed. */
export type ModelRequestSection = z.output<typeof modelRequestSchema>;

/** The section as the agent's request options. */
export function requestOptionsOf(section: ModelRequestSection): RequestOptions {
  const { tags, sendPersonId: _, ...rest } = section;
  return { ...rest, ...(tags !== undefined && { metadata: { tags } }) };
}
