/**
 * A reply's preview as a native Slack text stream: `chat.startStream` begins it (in a thread only:
 * Slack streams nowhere else), `chat.appendStream` adds what the answer grew by, and
 * `chat.stopStream` ends it, with the final text's rest when the answer only grew. Streams are
 * append-only, so a preview that is not the shown text plus more (a notice replaced, a text cut
 * short) stops the stream and the caller goes on with `chat.update`, as it does everywhere else.
 * A workspace that refuses the methods (`unknown_method`, a missing scope) is asked once: from
 * then on previews are posted and edited as before. The streamed text is Markdown, which Slack
 * renders itself (`markdown_text`); only the answer is streamed, never the preview's marker.
 *
 * A stream is noted before it is asked for (`stream-notes.ts`), so one a killed process left is
 * found by the next: where its ts was never heard (the process died, or the answer to
 * `chat.startStream` was lost on the way back), by the note's time in the thread (`recover`); where
 * it was (the gateway's inbox has it as the preview), on its first edit (`adopt`). Either way it is
 * stopped first, an ordinary message from then on, and the answer replaces it by an edit.
 */
import type { webApi } from '@slack/bolt';
import { DeliveryError, previewMarker, type ConversationAddress } from '../types.ts';
import type { CallSlack } from './call-slack.ts';
import { slackErrorCode } from './slack-errors.ts';
import type { StreamNotes } from './stream-notes.ts';

/** Refusals that mean the workspace (or the app's scopes) has no streaming at all. */
const workspaceRefusals = new Set(['unknown_method', 'missing_scope', 'not_allowed_token_type', 'method_deprecated', 'feature_not_enabled']);

/** Streams kept at once; the oldest is forgotten (and finished by edits) past it. */
const maxLive = 500;

/** Slack's limit on the Markdown one stream call carries. */
const maxMarkdownLength = 12_000;

/** How a live stream's final text was delivered. */
export type StreamFinish = 'finished' | 'stopped';

/** The native streams of one bot. */
export interface SlackStreams {
  /** Notes who the conversation's latest message is from: a stream outside a DM is addressed to them. */
  remember(address: ConversationAddress, userId: string): void;
  /** Whether `ts` is a stream this process began and has not stopped. */
  isLive(ts: string): boolean;
  /**
   * Begins a stream showing the preview `text`; its ts, or undefined where streaming is not to be
   * had (no thread, refused): the caller posts the preview instead.
   */
  start(address: ConversationAddress, text: string): Promise<string | undefined>;
  /**
   * Shows the preview `text` on the live stream `ts`: true when appended (or nothing new), false
   * when the stream was stopped because `text` does not continue it (the caller edits instead).
   */
  append(address: ConversationAddress, ts: string, text: string): Promise<boolean>;
  /**
   * Ends the live stream `ts` with the final `markdown`: `finished` when the answer only grew (its
   * rest appended as the stream stopped), `stopped` when the caller must put the text in by an edit.
   */
  finish(address: ConversationAddress, ts: string, markdown: string | undefined): Promise<StreamFinish>;
  /**
   * Before `ts`, a message this process did not begin, is edited: where an earlier process left a
   * stream in `address`, `ts` is stopped (if it is that stream), so the edit finishes an ordinary
   * message. Tried once per ts; never fails (a failure is logged).
   */
  adopt(address: ConversationAddress, ts: string): Promise<void>;
  /**
   * The stream an earlier process began in `address` at `since` (ms) or later and left without
   * hearing its ts, found by its note, stopped, and given as the preview to finish by edits;
   * undefined when there is none.
   */
  recover(address: ConversationAddress, since: number): Promise<string | undefined>;
}

/** What the streams need. */
export interface SlackStreamsOptions {
  client: webApi.WebClient;
  call: CallSlack;
  /** The workspace's id (`recipient_team_id`); known once the adapter started. */
  teamId(): string;
  /** Where streams are noted before they begin (see `stream-notes.ts`). */
  notes: StreamNotes;
  /** The ts of the bot's first message in `address` at `since` (ms) or later (`find-preview.ts`). */
  findStream(address: ConversationAddress, since: number): Promise<string | undefined>;
  log(line: string): void;
}

/** The preview's answer so far: its text without the marker the gateway puts at its end. */
export function answerOfPreview(text: string): string {
  const suffix = ` ${previewMarker}`;
  return (text.endsWith(suffix) ? text.slice(0, -suffix.length) : text).trimEnd();
}

function keyOf(address: ConversationAddress): string {
  return `${address.conversationId}:${address.threadId ?? ''}`;
}

/** Creates the streams of one bot. */
export function createSlackStreams(options: SlackStreamsOptions): SlackStreams {
  const { client, call, log, notes } = options;
  /** Live streams by ts: the Markdown shown so far. */
  const live = new Map<string, string>();
  /** Messages this process began or looked at as a stream (see `adopt`), bounded like `live`. */
  const known = new Map<string, true>();
  /** The latest person per conversation (bounded like `live`). */
  const recipients = new Map<string, string>();
  let refused = false;

  function bounded<T>(map: Map<string, T>, key: string, value: T): void {
    map.delete(key);
    map.set(key, value);
    if (map.size > maxLive) map.delete(map.keys().next().value!);
  }

  /** Stops `ts`, adding `rest`; false when it was stopped already (without `rest`, as far as we know). */
  async function stop(address: ConversationAddress, ts: string, rest: string | undefined): Promise<boolean> {
    try {
      await call('chat.stopStream', () => client.chat.stopStream({ channel: address.conversationId, ts, ...(rest ? { markdown_text: rest } : {}) }));
      live.delete(ts);
      notes.end(address);
      return true;
    } catch (error) {
      // Stopped already (Slack ends a stream left alone, or a stop whose answer was lost): an
      // ordinary message now, which the caller edits into the final text. Any other failure keeps
      // the stream live, so the delivery ledger's next attempt stops it again.
      if (slackErrorCode(error) !== 'message_not_in_streaming_state') throw error;
      if (live.delete(ts)) notes.end(address);
      return false;
    }
  }

  /** `recover` on `address` since `since`, logged rather than thrown. */
  async function recover(address: ConversationAddress, since: number): Promise<string | undefined> {
    try {
      const ts = await options.findStream(address, since);
      if (ts === undefined) return undefined;
      bounded(known, ts, true);
      // Stopped, or stopped already: an ordinary message the preview's edits finish.
      await stop(address, ts, undefined);
      notes.end(address);
      log(`slack: a stream left unheard in ${address.conversationId} (${ts}) is finished by edits`);
      return ts;
    } catch (error) {
      log(`slack: a stream left unheard was not looked for: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
  }

  return {
    remember(address, userId) {
      bounded(recipients, keyOf(address), userId);
    },

    isLive: (ts) => live.has(ts),

    async start(address, text) {
      const answer = answerOfPreview(text).slice(0, maxMarkdownLength);
      // Slack begins a stream with some text; a preview of nothing but its marker is posted.
      if (refused || address.threadId === undefined || answer === '') return undefined;
      const recipient = recipients.get(keyOf(address));
      // Outside a DM Slack must be told whom the stream is for; without a person, post instead.
      const direct = address.conversationId.startsWith('D');
      if (!direct && recipient === undefined) return undefined;
      const noted = await notes.begin(address);
      try {
        const started = await call('chat.startStream', () =>
          client.chat.startStream({
            channel: address.conversationId,
            thread_ts: address.threadId!,
            markdown_text: answer,
            ...(!direct ? { recipient_user_id: recipient!, recipient_team_id: options.teamId() } : {}),
          }),
        );
        if (typeof started.ts !== 'string') throw new DeliveryError('Slack chat.startStream answered without a ts', { retryable: false });
        bounded(live, started.ts, answer);
        bounded(known, started.ts, true);
        return started.ts;
      } catch (error) {
        if (error instanceof DeliveryError && error.retryable) {
          // Slack may have taken it (the answer lost on the way back): found, it is this preview,
          // finished by edits; never a second stream beside it.
          const found = await recover(address, noted);
          if (found !== undefined) return found;
          throw error;
        }
        notes.end(address);
        const code = slackErrorCode(error) ?? 'refused';
        if (workspaceRefusals.has(code)) {
          refused = true;
          log(`slack: chat.startStream refused (${code}); previews are posted and edited with chat.update`);
        } else log(`slack: chat.startStream refused (${code}); this preview is posted instead`);
        return undefined;
      }
    },

    async append(address, ts, text) {
      const shown = live.get(ts);
      if (shown === undefined) return false;
      const answer = answerOfPreview(text);
      if (!answer.startsWith(shown) || answer.length > maxMarkdownLength) {
        await stop(address, ts, undefined);
        return false;
      }
      const more = answer.slice(shown.length);
      if (more === '') return true;
      await call('chat.appendStream', () => client.chat.appendStream({ channel: address.conversationId, ts, markdown_text: more }));
      live.set(ts, answer);
      return true;
    },

    async finish(address, ts, markdown) {
      const shown = live.get(ts);
      if (shown === undefined) return 'stopped';
      const final = markdown?.trim();
      if (final === undefined || !final.startsWith(shown) || final.length - shown.length > maxMarkdownLength) {
        await stop(address, ts, undefined);
        return 'stopped';
      }
      return (await stop(address, ts, final.slice(shown.length))) ? 'finished' : 'stopped';
    },

    async adopt(address, ts) {
      // Streams are only ever in threads: elsewhere there is nothing to look up.
      if (address.threadId === undefined || known.has(ts)) return;
      bounded(known, ts, true);
      if ((await notes.leftBehind(address)) === undefined) return;
      try {
        // Not a stream (or one Slack already ended): it stays as it is, and the edit goes on.
        if (await stop(address, ts, undefined)) {
          log(`slack: a stream an earlier process left in ${address.conversationId} (${ts}) is finished by edits`);
        }
      } catch (error) {
        log(`slack: a stream an earlier process left (${ts}) not stopped: ${error instanceof Error ? error.message : String(error)}`);
      }
    },

    async recover(address, since) {
      const at = await notes.leftBehind(address);
      // A note from before the turn began is an older turn's (its stream Slack ended by itself).
      return at === undefined || at < since ? undefined : recover(address, at);
    },
  };
}
