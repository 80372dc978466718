/**
 * The words of transcription: the line the model gets for a recording it heard (`[voice, 0:42] …`),
 * the note it gets for one it did not, and the sentence the person gets then. Kept apart from the
 * work so the wording is read and tested in one place.
 */
import type { Recording } from '../channels/types.ts';

/** Why a recording was not transcribed. */
export type NotHeard =
  | { reason: 'unset' }
  | { reason: 'too long'; seconds: number; maxSeconds: number }
  | { reason: 'too large'; bytes: number | undefined; maxBytes: number }
  | { reason: 'failed' }
  | { reason: 'not downloaded' }
  | { reason: 'spending'; paused: boolean };

/** `42` → `0:42`, `725` → `12:05`, `3725` → `1:02:05` (whole seconds, rounded). */
export function clock(seconds: number): string {
  const total = Math.max(0, Math.round(seconds));
  const [hours, minutes, rest] = [Math.floor(total / 3600), Math.floor((total % 3600) / 60), total % 60];
  const two = (value: number) => String(value).padStart(2, '0');
  return hours > 0 ? `${hours}:${two(minutes)}:${two(rest)}` : `${minutes}:${two(rest)}`;
}

/**
 * The person's words as the model gets them, marked as transcribed: `[voice, 0:42] see you at
 * noon`, `[video note] hi` (no length when neither the platform nor the server said).
 */
export function transcribedLine(recording: Recording, seconds: number | undefined, text: string): string {
  const length = seconds === undefined ? '' : `, ${clock(seconds)}`;
  // One line: a transcript never starts a line of its own, where it could pose as a group's speaker label.
  const words = text.replace(/\s+/gu, ' ').trim();
  return `[${recording.kind}${length}] ${words === '' ? '(no words heard)' : words}`;
}

/** What the recording is called in a sentence: `voice note`, `audio file`, `video note`. */
export function recordingName(recording: Recording): string {
  return recording.kind === 'audio' ? 'audio file' : recording.kind === 'voice' ? 'voice note' : 'video note';
}

/**
 * The note the model gets beside the message for a recording it did not hear, so it knows one came
 * and why it has no words of it (the file itself is saved like any other, where it fits).
 */
export function notHeardNote(recording: Recording, why: NotHeard): string {
  const length = recording.seconds === undefined ? '' : ` (${clock(recording.seconds)})`;
  return `[a ${recordingName(recording)}${length} came with this message but was not transcribed: ${reasonForModel(why)}]`;
}

function reasonForModel(why: NotHeard): string {
  switch (why.reason) {
    case 'unset':
      return 'transcription is not set up on this gateway';
    case 'too long':
      return `it is longer than the ${clock(why.maxSeconds)} that is transcribed`;
    case 'too large':
      return `it is larger than the ${megabytes(why.maxBytes)} that is transcribed`;
    case 'failed':
      return 'the transcription service failed';
    case 'not downloaded':
      return 'it could not be downloaded from the platform';
    case 'spending':
      return why.paused ? 'model calls are paused by an admin' : 'a spending cap is reached';
  }
}

/**
 * The one sentence the person gets for a recording not heard, or undefined when they need none
 * (a spending cap: the turn itself tells them). Without a provider it says what the admin can set.
 */
export function notHeardSentence(recording: Recording, why: NotHeard): string | undefined {
  const name = recordingName(recording);
  switch (why.reason) {
    case 'unset':
      return `I can't hear voice notes yet, so please type your message: the admin can turn transcription on by setting OPENAI_API_KEY, or OPERATOR_TRANSCRIBE_BASE_URL for a local whisper server.`;
    case 'too long':
      return `Your ${name} is ${clock(why.seconds)} long, longer than the ${clock(why.maxSeconds)} I can transcribe, so I did not hear it: please send a shorter one or type it.`;
    case 'too large': {
      const size = why.bytes === undefined ? `more than ${megabytes(why.maxBytes)}` : megabytes(why.bytes);
      return `Your ${name} is ${size}, larger than the ${megabytes(why.maxBytes)} I can transcribe, so I did not hear it: please send a shorter one or type it.`;
    }
    case 'failed':
      return `I could not transcribe your ${name} (the transcription service failed), so I did not hear it: please send it again or type it.`;
    case 'not downloaded':
      return `I could not download your ${name}, so I did not hear it: please send it again or type it.`;
    case 'spending':
      return undefined;
  }
}

/** `25 MB`, `2.5 MB`, `900.0 KB`, `1000 bytes`: whole megabytes (the usual limits) without a fraction. */
function megabytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  const mb = bytes / (1024 * 1024);
  return `${Number.isInteger(mb) ? mb : mb.toFixed(1)} MB`;
}
