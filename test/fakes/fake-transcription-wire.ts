/**
 * OpenAI's `POST /v1/audio/transcriptions` for the fake model server: the multipart form the SDK
 * sends (the audio file, the model, the response format) read back with the platform's own form
 * parser, and answered with a scripted transcript or error. Its requests are kept apart from the
 * chat requests, so a test's model replies are not taken by a voice note.
 */
import type { ErrorReply } from './fake-model-types.ts';
import { openaiErrorBody } from './fake-openai-wire.ts';

/** One transcription request as the fake read it. */
export interface TranscriptionRequest {
  model: string;
  /** The file part's name and type, and its bytes. */
  fileName: string;
  mediaType: string;
  bytes: Uint8Array;
  responseFormat: string | undefined;
  /** Lower-cased header names. */
  headers: Record<string, string>;
}

/** A scripted answer: the transcript (with the billed length, `usage.type: duration`), or an HTTP error. */
export type TranscriptReply = { text: string; seconds?: number } | { error: ErrorReply };

/** Reads the multipart form of a transcription request; undefined when it is not one (no file or model). */
export async function readTranscriptionRequest(body: Buffer, headers: Record<string, string>): Promise<TranscriptionRequest | undefined> {
  let form: FormData;
  try {
    form = await new Response(body, { headers: { 'content-type': headers['content-type'] ?? '' } }).formData();
  } catch {
    return undefined;
  }
  const file = form.get('file');
  const model = form.get('model');
  if (!(file instanceof Blob) || typeof model !== 'string') return undefined;
  const format = form.get('response_format');
  return {
    model,
    fileName: file instanceof File ? file.name : '',
    mediaType: file.type,
    bytes: new Uint8Array(await file.arrayBuffer()),
    responseFormat: typeof format === 'string' ? format : undefined,
    headers,
  };
}

/** The status and JSON body answering `reply`. */
export function transcriptionAnswer(reply: TranscriptReply): { status: number; body: unknown } {
  if ('error' in reply) return { status: reply.error.status, body: openaiErrorBody(reply.error) };
  return { status: 200, body: { text: reply.text, ...(reply.seconds !== undefined && { usage: { type: 'duration', seconds: reply.seconds } }) } };
}
