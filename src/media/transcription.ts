/**
 * Recordings a person sends (voice notes, audio files, round video notes) as the person's words:
 * each is transcribed and given to the model as a line marked as transcribed (`[voice, 0:42] …`).
 * One that cannot be (no endpoint configured, too long, too large, the endpoint failing, a spending
 * cap) is named to the model with why, and the person is told in one sentence; it is then left to
 * be saved like any other file, so nothing they sent is lost.
 */
import { FileTooLargeError } from '../channels/capped-bytes.ts';
import type { Attachment, InboundMessage, Recording } from '../channels/types.ts';
import { BudgetExhaustedError, errorMessage } from '../core/errors.ts';
import { transcriptionCost } from '../llm/transcription-prices.ts';
import { notHeardNote, notHeardSentence, transcribedLine, type NotHeard } from './recording-words.ts';
import type { Transcriber } from './transcriber-env.ts';

/** `transcription` in operator.json: the largest recording transcribed. */
export interface TranscriptionLimits {
  /** Longest recording, in seconds (its declared length; default 600). */
  maxSeconds: number;
  /** Largest recording, in bytes (default 25 MB, OpenAI's own limit). */
  maxBytes: number;
}

/** The limits when operator.json sets none. */
export const defaultTranscriptionLimits: TranscriptionLimits = { maxSeconds: 600, maxBytes: 25 * 1024 * 1024 };

/** A reservation of a transcription's worst case on the spending caps, settled at its cost. */
export interface TranscriptionHold {
  settle(costUsd: number): void;
}

/** Where one message's transcriptions report and spend. */
export interface HearingPlace {
  /** Sends `text` to the person; never fails. */
  tell(text: string): Promise<void>;
  log(line: string): void;
  /** Reserves `worstCaseUsd` on the caps the message's turn counts for; rejects with a `BudgetExhaustedError` when one is reached. */
  reserve?(worstCaseUsd: number): Promise<TranscriptionHold>;
  /** One transcription done: its model, seconds of audio and cost (for the usage ledger and metrics). */
  spent?(usage: { model: string; seconds: number; costUsd: number }): void;
}

/** What a message's recordings gave. */
export interface Heard {
  /** For the model, in the order the recordings came: the words heard, or a note of why not. */
  lines: string[];
  /** Recordings transcribed: not saved as files too (their words are what the person said). */
  transcribed: ReadonlySet<Attachment>;
}

/** Conversations told that transcription is not set up, remembered so they are told once. */
const maxRemembered = 10_000;

/**
 * Which conversations were told that transcription is not set up, so each is told once: the
 * process's memory by default; a Worker's conversation keeps it in its object's storage.
 */
export interface ToldUnset {
  has(sessionKey: string): boolean | Promise<boolean>;
  add(sessionKey: string): void | Promise<void>;
}

/** The process's own memory of who was told (bounded; a restart forgets it). */
function toldInMemory(): ToldUnset {
  const told = new Set<string>();
  return {
    has: (sessionKey) => told.has(sessionKey),
    add: (sessionKey) => {
      if (told.size >= maxRemembered) told.clear();
      told.add(sessionKey);
    },
  };
}

/** Transcribes the recordings of messages with one endpoint (or none) and one set of limits. */
export class Transcription {
  readonly #transcriber: Transcriber | undefined;
  readonly #limits: TranscriptionLimits;
  readonly #toldUnset: ToldUnset;

  constructor(transcriber: Transcriber | undefined, limits: TranscriptionLimits = defaultTranscriptionLimits, toldUnset: ToldUnset = toldInMemory()) {
    this.#transcriber = transcriber;
    this.#limits = limits;
    this.#toldUnset = toldUnset;
  }

  /** Whether an endpoint is configured. */
  get enabled(): boolean {
    return this.#transcriber !== undefined;
  }

  /** The recordings of `message` heard, one after another (a message rarely has more than one). */
  async hear(message: Pick<InboundMessage, 'sessionKey' | 'attachments'>, place: HearingPlace): Promise<Heard> {
    const lines: string[] = [];
    const transcribed = new Set<Attachment>();
    let toldUnset = false;
    for (const attachment of message.attachments) {
      const recording = recordingOf(attachment);
      if (!recording) continue;
      const result = await this.#hearOne(attachment, recording, place, message.sessionKey);
      if (typeof result === 'string') {
        lines.push(result);
        transcribed.add(attachment);
        continue;
      }
      lines.push(notHeardNote(recording, result));
      // Without an endpoint the person is told once per conversation: every later note says the same.
      if (result.reason === 'unset') {
        if (toldUnset || (await this.#toldUnset.has(message.sessionKey))) continue;
        toldUnset = true;
        await this.#toldUnset.add(message.sessionKey);
      }
      const sentence = notHeardSentence(recording, result);
      if (sentence !== undefined) await place.tell(sentence);
    }
    return { lines, transcribed };
  }

  /** One recording's line for the model, or why it was not heard. */
  async #hearOne(attachment: Attachment, recording: Recording, place: HearingPlace, label: string): Promise<string | NotHeard> {
    const transcriber = this.#transcriber;
    if (!transcriber) return { reason: 'unset' };
    const { maxSeconds, maxBytes } = this.#limits;
    // The declared length and size are checked before anything is downloaded or spent.
    if (recording.seconds !== undefined && recording.seconds > maxSeconds) return { reason: 'too long', seconds: recording.seconds, maxSeconds };
    if (attachment.size !== undefined && attachment.size > maxBytes) return { reason: 'too large', bytes: attachment.size, maxBytes };
    let hold: TranscriptionHold | undefined;
    try {
      // Reserved at its declared length, else at the longest one taken; before the download, so a
      // person past their cap costs no download either.
      hold = await place.reserve?.(transcriptionCost(transcriber.model, recording.seconds ?? maxSeconds));
    } catch (error) {
      if (error instanceof BudgetExhaustedError) return { reason: 'spending', paused: error.details.paused === true };
      throw error;
    }
    let downloaded = false;
    try {
      const bytes = await attachment.download({ maxBytes });
      // A download that ignored the limit is still held to it.
      if (bytes.length > maxBytes) throw new FileTooLargeError('the recording', maxBytes, bytes.length);
      downloaded = true;
      const heard = await transcriber.transcribe({ bytes, name: attachment.name ?? `${recording.kind.replace(' ', '-')}.${extensionOf(attachment.mediaType)}`, mediaType: attachment.mediaType });
      const seconds = recording.seconds ?? heard.seconds;
      const costUsd = transcriptionCost(transcriber.model, seconds ?? 0);
      hold?.settle(costUsd);
      hold = undefined;
      place.spent?.({ model: transcriber.model, seconds: seconds ?? 0, costUsd });
      return transcribedLine(recording, seconds, heard.text);
    } catch (error) {
      if (error instanceof FileTooLargeError) return { reason: 'too large', bytes: error.size, maxBytes };
      place.log(`${label}: recording not ${downloaded ? 'transcribed' : 'downloaded'}: ${errorMessage(error)}`);
      return { reason: downloaded ? 'failed' : 'not downloaded' };
    } finally {
      hold?.settle(0);
    }
  }
}

/**
 * What sound `attachment` is: as the platform marked it, else `audio` for any `audio/*` file
 * (a Slack or Discord upload the adapter did not mark); undefined for anything else.
 */
export function recordingOf(attachment: Attachment): Recording | undefined {
  if (attachment.recording) return attachment.recording;
  return attachment.mediaType.toLowerCase().startsWith('audio/') ? { kind: 'audio' } : undefined;
}

/** A file extension the endpoint reads the format from, for a recording without a name. */
function extensionOf(mediaType: string): string {
  const subtype = mediaType.toLowerCase().split(';', 1)[0]!.split('/')[1] ?? '';
  const known: Record<string, string> = { ogg: 'ogg', opus: 'ogg', mpeg: 'mp3', mp3: 'mp3', mp4: 'mp4', 'x-m4a': 'm4a', m4a: 'm4a', wav: 'wav', 'x-wav': 'wav', webm: 'webm', flac: 'flac' };
  return known[subtype] ?? 'ogg';
}
