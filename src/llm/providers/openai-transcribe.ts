/**
 * Speech to text through the `openai` SDK's `audio.transcriptions` (`POST /audio/transcriptions`,
 * a multipart form), against OpenAI or a compatible server (a local whisper server). The only
 * place the transcription path imports the SDK: what sits above speaks {@link TranscribeAudio}.
 */
import OpenAI, { toFile } from 'openai';
import { classifyError } from '../classify-error.ts';

/** One recording to transcribe. */
export interface AudioInput {
  bytes: Uint8Array;
  /** A file name the server reads the format from (`voice-12.ogg`). */
  name: string;
  mediaType: string;
}

/** What the server heard. */
export interface AudioTranscript {
  text: string;
  /** The length of the audio as the server billed it, when it says (`usage.type: duration`). */
  seconds?: number;
}

/** Transcribes one recording; rejects with a `ProviderError` (its message free of secrets). */
export type TranscribeAudio = (audio: AudioInput, signal?: AbortSignal) => Promise<AudioTranscript>;

/** Options of {@link createOpenAITranscriber}. */
export interface OpenAITranscriberOptions {
  model: string;
  /** Unset: the public API, which then needs a key. */
  baseURL?: string;
  /** Unset with a base URL: a placeholder (a local server needs none, the SDK insists on one). */
  apiKey?: string;
  /** Longest wait for the whole answer, in milliseconds. */
  timeoutMs: number;
}

const providerName = 'openai';
const placeholderKey = 'no-key-needed';

/**
 * A transcriber over the `openai` SDK. The SDK does not retry (`maxRetries: 0`): a voice note that
 * fails is reported to the person at once rather than held up behind retries.
 */
export function createOpenAITranscriber(options: OpenAITranscriberOptions): TranscribeAudio {
  const client = new OpenAI({
    apiKey: options.apiKey ?? placeholderKey,
    ...(options.baseURL !== undefined && { baseURL: options.baseURL }),
    timeout: options.timeoutMs,
    maxRetries: 0,
  });
  return async (audio, signal) => {
    try {
      const file = await toFile(audio.bytes, audio.name, { type: audio.mediaType });
      const result = await client.audio.transcriptions.create({ file, model: options.model, response_format: 'json' }, { signal });
      const usage = (result as { usage?: { type?: string; seconds?: number } }).usage;
      return { text: result.text, ...(usage?.type === 'duration' && typeof usage.seconds === 'number' && { seconds: usage.seconds }) };
    } catch (error) {
      // Its own message, redacted: the SDK's error may echo the key or the request.
      throw classifyError(error, providerName);
    }
  };
}
