/**
 * The line a model gets in place of a content part its provider does not take (a recording for
 * Claude, a document for Gemini), so it knows something was there rather than seeing a gap.
 */
import type { AudioPart, DocumentPart } from '../types.ts';

/** The note that stands in for `part`. */
export function leftOutNote(part: AudioPart | DocumentPart, provider: string): string {
  const what = part.type === 'audio' ? `A recording (${part.mediaType})` : `A document${part.name ? ` named ${JSON.stringify(part.name)}` : ''} (${part.mediaType})`;
  return `[${what} was attached here, but ${provider} cannot take it, so it was left out.]`;
}
