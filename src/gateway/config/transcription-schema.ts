/**
 * `transcription` in operator.json: the limits on the recordings people send (voice notes, audio
 * files, video notes) that are transcribed for the model. Whether transcription is on at all comes
 * from the environment (an OpenAI key or base URL; see `src/media/transcriber-env.ts`), since it
 * follows from where a key is.
 */
import * as z from 'zod';
import { defaultTranscriptionLimits } from '../../media/transcription.ts';

/** The `transcription` section. */
export const transcriptionSchema = z
  .strictObject({
    maxSeconds: z
      .int()
      .min(1)
      .max(86_400)
      .default(defaultTranscriptionLimits.maxSeconds)
      .describe('Longest recording transcribed, in seconds (its length as the platform says); a longer one is not, and the person is told.'),
    maxBytes: z
      .int()
      .min(1)
      .max(1024 * 1024 * 1024)
      .default(defaultTranscriptionLimits.maxBytes)
      .describe("Largest recording transcribed, in bytes (default 25 MB, OpenAI's own limit); a larger one is not, and the person is told."),
  })
  .prefault({})
  .describe('Voice notes, audio files and video notes transcribed for the model (docs/platforms.md, Voice notes). On whenever OPENAI_API_KEY, OPENAI_BASE_URL or OPERATOR_TRANSCRIBE_BASE_URL is set.');
