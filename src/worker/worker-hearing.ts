/**
 * Recordings people send (voice notes, audio files, round video notes), heard on Workers by the
 * gateway's own `Transcription` (`src/media/`): the same endpoint variables (`OPENAI_API_KEY`,
 * `OPENAI_BASE_URL`, `OPERATOR_TRANSCRIBE_*`), the same limits (`transcription` in operator.json,
 * here `OPERATOR_TRANSCRIBE_MAX_SECONDS` and `OPERATOR_TRANSCRIBE_MAX_BYTES`), words and notes.
 * What differs is where things are: a recording's bytes come from R2 or its platform
 * (`kept-files.ts`; kept in R2 like any file, so a turn tried again before it began reads them
 * from there), its cost is reserved on the bot's spend object through the conversation's gate
 * (`worker-spending.ts`) before the download and settled at its real length, and that a
 * conversation was told transcription is not set up is kept in its object's storage, so it is
 * told once, not once per life of the object.
 */
import type { Attachment } from '../channels/types.ts';
import type { CostGate } from '../gateway/budget/budget-gate.ts';
import type { InboxEntry } from '../gateway/inbox.ts';
import { escapeFrame } from '../gateway/speaker-label.ts';
import { transcriberFromEnv, type Environment } from '../media/transcriber-env.ts';
import { defaultTranscriptionLimits, recordingOf, Transcription, type ToldUnset } from '../media/transcription.ts';
import type { Store } from '../store/store.ts';
import type { TurnContext } from '../tools/tool.ts';
import { fileNameOf, keptBytes, type FileSource } from './kept-files.ts';
import { workerConfig } from './worker-config.ts';
import type { WorkerEnv } from './worker-env.ts';

/** What a message's recordings gave its turn. */
export interface HeardRecordings {
  /** For the model, after the message's text: the words heard, or a note of why not. */
  lines: string[];
  /** The places (among the message's attachments) of the recordings transcribed: not named as files too. */
  transcribed: ReadonlySet<number>;
  /** What to tell the person (a recording not heard), in order. */
  notices: string[];
}

/** What hearing works with: the Worker's variables, the conversation's store and its spending. */
export interface HearingOptions {
  env: WorkerEnv;
  store: Store;
  /** The gate of the conversation `sessionKey`'s spending. */
  spending(sessionKey: string): CostGate;
  log(line: string): void;
}

/** Hears one message's recordings for its turn. */
export type HearEntry = (source: FileSource, admitted: { entry: InboxEntry; admin: boolean }, refs: readonly (string | null)[]) => Promise<HeardRecordings>;

/** Where a conversation notes that it was told transcription is not set up. */
const toldUnsetKey = 'transcription:told-unset';

/** How a conversation's object hears recordings (the transcriber made once, its SDK loaded with the first recording). */
export function workerHearing(options: HearingOptions): HearEntry {
  const { env, store, log } = options;
  const limits = workerConfig(env).config.transcription ?? defaultTranscriptionLimits;
  // The object is one conversation: whether it was told is one value in its storage.
  const told: ToldUnset = {
    has: async () => (await store.get<boolean>(toldUnsetKey)) === true,
    add: async () => void (await store.set(toldUnsetKey, true)),
  };
  const transcription = new Transcription(transcriberFromEnv(env as unknown as Environment), limits, told);
  return async (source, { entry, admin }, refs) => {
    const attachments: Attachment[] = entry.attachments.map((attachment, index) => ({
      ...attachment,
      download: async (downloadOptions) => {
        const image = attachment.kind === 'image';
        const file = { entry, index, ref: refs[index] ?? undefined, name: fileNameOf(attachment.name, attachment.mediaType, image), mediaType: attachment.mediaType };
        const bytes = await keptBytes(source, file, downloadOptions?.maxBytes ?? limits.maxBytes);
        if (bytes === undefined) throw new Error('the recording was not kept');
        return bytes;
      },
    }));
    // Most messages bring none: nothing to work out for them.
    if (!attachments.some((attachment) => recordingOf(attachment) !== undefined)) return { lines: [], transcribed: new Set(), notices: [] };
    const notices: string[] = [];
    // What the turn's own calls count against: its person (unless an admin), conversation, the bot.
    const turn: TurnContext = { sessionKey: entry.sessionKey, platform: entry.address.platform, senderId: entry.sender.id, admin, scheduled: false };
    const heard = await transcription.hear(
      { sessionKey: entry.sessionKey, attachments },
      {
        tell: async (text) => void notices.push(text),
        log,
        reserve: (worstCaseUsd) => options.spending(entry.sessionKey).reserveCost(turn, worstCaseUsd, 'Not transcribed'),
      },
    );
    // In a group the words heard are escaped like the person's typed text (see `turnText`), as on Node.
    const lines = entry.scope === 'group' ? heard.lines.map(escapeFrame) : heard.lines;
    const transcribed = new Set(attachments.flatMap((attachment, index) => (heard.transcribed.has(attachment) ? [index] : [])));
    return { lines, transcribed, notices };
  };
}
