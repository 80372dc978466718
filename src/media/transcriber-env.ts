/**
 * Which speech-to-text endpoint the environment names, if any. Transcription is on whenever an
 * OpenAI key or base URL is configured: `OPERATOR_TRANSCRIBE_MODEL` (default
 * `gpt-4o-mini-transcribe`) at `OPERATOR_TRANSCRIBE_BASE_URL` (default `OPENAI_BASE_URL`, else
 * OpenAI's API), so a local whisper server works the way a local model server does.
 */
import type { AudioInput, AudioTranscript, TranscribeAudio } from '../llm/providers/openai-transcribe.ts';

/** Environment variables as `process.env` holds them. */
export type Environment = Record<string, string | undefined>;

/** The model asked when `OPERATOR_TRANSCRIBE_MODEL` is not set. */
export const defaultTranscribeModel = 'gpt-4o-mini-transcribe';

/** How long one transcription may take before it counts as failed. */
export const transcribeTimeoutMs = 120_000;

/** A configured transcriber: the call, and what it is (for cost and the log; never a key). */
export interface Transcriber {
  transcribe: TranscribeAudio;
  model: string;
  /** The endpoint's host (`api.openai.com`, `127.0.0.1:8000`), for the start-up line. */
  host: string;
}

/**
 * The transcriber the environment configures, or undefined when it names no endpoint. The SDK is
 * loaded on the first recording, not at start-up.
 *
 * The OpenAI key goes only where OpenAI's models go (OpenAI's API, or `OPENAI_BASE_URL`): a
 * separate `OPERATOR_TRANSCRIBE_BASE_URL` gets `OPERATOR_TRANSCRIBE_API_KEY` or none, so a key is
 * never sent to a server it was not given for.
 */
export function transcriberFromEnv(env: Environment): Transcriber | undefined {
  const openaiBase = value(env, 'OPENAI_BASE_URL');
  const ownBase = value(env, 'OPERATOR_TRANSCRIBE_BASE_URL');
  const openaiKey = value(env, 'OPENAI_API_KEY');
  if (openaiKey === undefined && openaiBase === undefined && ownBase === undefined) return undefined;
  const baseURL = ownBase ?? openaiBase;
  const apiKey = value(env, 'OPERATOR_TRANSCRIBE_API_KEY') ?? (ownBase === undefined || ownBase === openaiBase ? openaiKey : undefined);
  if (baseURL === undefined && apiKey === undefined) return undefined;
  const model = value(env, 'OPERATOR_TRANSCRIBE_MODEL') ?? defaultTranscribeModel;
  let loaded: Promise<TranscribeAudio> | undefined;
  const transcribe = async (audio: AudioInput, signal?: AbortSignal): Promise<AudioTranscript> => {
    loaded ??= import('../llm/providers/openai-transcribe.ts').then((module) => module.createOpenAITranscriber({ model, baseURL, apiKey, timeoutMs: transcribeTimeoutMs }));
    return (await loaded)(audio, signal);
  };
  return { transcribe, model, host: hostOf(baseURL) };
}

function hostOf(baseURL: string | undefined): string {
  if (baseURL === undefined) return 'api.openai.com';
  try {
    return new URL(baseURL).host;
  } catch {
    return 'an unreadable OPERATOR_TRANSCRIBE_BASE_URL';
  }
}

function value(env: Environment, name: string): string | undefined {
  const text = env[name]?.trim();
  return text === undefined || text === '' ? undefined : text;
}
