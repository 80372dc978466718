/**
 * What the fake Slack remembers: every Web API call, each channel's messages (the people's and
 * the bot's, by channel and thread, as they stand after updates, with their blocks and
 * reactions), ephemeral notices, `response_url` posts, hosted files, the bot's file uploads (begun,
 * uploaded, shared) and scripted failures.
 */

import { requiredSlackScopes } from '../../src/channels/slack/required-scopes.ts';
import { ChangeFeed, takeScripted } from './fake-change-feed.ts';

/** The bot the fake's token belongs to. */
export interface FakeSlackBot {
  token: string;
  userId: string;
  botId: string;
  teamId: string;
  appId: string;
}

/** One Web API call as the fake received it. */
export interface FakeSlackCall {
  method: string;
  /** Parameters after parsing (form or JSON; `blocks` and other JSON fields decoded). */
  params: Record<string, unknown>;
  /** The HTTP status answered (`0` for a dropped connection). */
  status: number;
  /** Slack's `error` for an `ok: false` answer. */
  error?: string;
}

/** A message in a channel, as it stands now. */
export interface FakeSlackMessage {
  channel: string;
  ts: string;
  /** The thread it was posted in (the parent's ts), if any. */
  threadTs?: string;
  user: string;
  botId?: string;
  /** The `text` field as sent (mrkdwn). */
  text: string;
  blocks?: Record<string, unknown>[];
  /** Reaction name -> users who reacted. */
  reactions: Map<string, Set<string>>;
  edits: number;
  /** When the fake took it (ms since the epoch). */
  createdAt: number;
  /** A message begun with `chat.startStream` and not yet stopped (its `text` is Markdown). */
  streaming?: boolean;
}

/** What the app set in an assistant thread (`assistant.threads.*`), in the order it set it. */
export interface FakeAssistantCall {
  method: 'setStatus' | 'setSuggestedPrompts' | 'setTitle';
  channel: string;
  threadTs?: string;
  status?: string;
  title?: string;
  prompts?: { title: string; message: string }[];
}

/** An ephemeral message (chat.postEphemeral) or a `response_url` post. */
export interface FakeSlackNotice {
  channel?: string;
  user?: string;
  text: string;
  threadTs?: string;
  /** The `response_url` it was posted to, for response posts. */
  responseUrl?: string;
  body?: Record<string, unknown>;
}

/** Picks calls by their parameters. */
export type FakeSlackCallFilter = (params: Record<string, unknown>) => boolean;

/**
 * An answer scripted with `failNext`: an `ok: false` error, an HTTP status (429 comes with
 * `Retry-After`), or a connection dropped without an answer; with `when`, only the calls it
 * accepts fail.
 */
export type FakeSlackFailure =
  | { error: string; times?: number; when?: FakeSlackCallFilter }
  | { status: number; retryAfter?: number; body?: string; times?: number; when?: FakeSlackCallFilter }
  | {
      dropConnection: true;
      /** Carries the call out first, then drops the connection: the caller never hears that it worked. */
      afterCarryingOut?: boolean;
      times?: number;
      when?: FakeSlackCallFilter;
    };

/** A file the fake serves at its private download URL. */
export interface FakeSlackFile {
  id: string;
  name: string;
  mimetype: string;
  bytes: Uint8Array;
  path: string;
}

/** A file upload begun with `files.getUploadURLExternal`, by the bot. */
export interface FakeSlackUpload {
  id: string;
  filename: string;
  /** The `length` declared when the upload began. */
  length: number;
  /** The path of its `upload_url`. */
  uploadPath: string;
  /** The bytes POSTed to the upload URL, once they arrived. */
  bytes?: Uint8Array;
  /** The media type of the uploaded part, when it said. */
  mimetype?: string;
  /** Finished with `files.completeUploadExternal`. */
  completed: boolean;
}

/** A file the bot shared into a channel (or a thread) with `files.completeUploadExternal`. */
export interface FakeSlackSharedFile {
  id: string;
  name: string;
  title: string;
  bytes: Uint8Array;
  channel: string;
  /** The thread it was shared into, if any. */
  threadTs?: string;
  /** When it was shared, in message ts order (so it sorts among the channel's messages). */
  ts: string;
}

/** State of one fake Slack. */
export class FakeSlackState extends ChangeFeed {
  readonly calls: FakeSlackCall[] = [];
  readonly messages: FakeSlackMessage[] = [];
  readonly ephemerals: FakeSlackNotice[] = [];
  readonly responses: FakeSlackNotice[] = [];
  readonly files = new Map<string, FakeSlackFile>();
  /** The bot's uploads by file id. */
  readonly uploads = new Map<string, FakeSlackUpload>();
  readonly sharedFiles: FakeSlackSharedFile[] = [];
  readonly failures = new Map<string, FakeSlackFailure[]>();
  /** The people who posted, by id, with the name `users.info` gives them. */
  readonly people = new Map<string, string>();
  /** What the app set in assistant threads, oldest first. */
  readonly assistant: FakeAssistantCall[] = [];
  /** Whether `chat.startStream` and the rest are refused (`unknown_method`), like a workspace without them. */
  streamingRefused = false;
  /** The bot token's scopes, as every answer to it lists them in `x-oauth-scopes` (default: the manifest's). */
  grantedScopes: string[] = Object.keys(requiredSlackScopes);
  #clock = 1_760_000_000;
  #counter = 0;

  constructor(readonly bot: FakeSlackBot) {
    super();
  }

  /** A fresh message ts: seconds and microseconds, increasing, unique in the workspace. */
  nextTs(): string {
    this.#counter += 1;
    return `${this.#clock + this.#counter}.${String(this.#counter).padStart(6, '0')}`;
  }

  /** A fresh number for ids (event ids, trigger ids, file ids). */
  nextNumber(): number {
    this.#counter += 1;
    return this.#counter;
  }

  message(channel: string, ts: string): FakeSlackMessage | undefined {
    return this.messages.find((message) => message.channel === channel && message.ts === ts);
  }

  /** Stores a message and returns it. */
  addMessage(message: Omit<FakeSlackMessage, 'reactions' | 'edits' | 'createdAt'>): FakeSlackMessage {
    const stored: FakeSlackMessage = { ...message, reactions: new Map(), edits: 0, createdAt: Date.now() };
    this.messages.push(stored);
    this.notify();
    return stored;
  }

  /** The scripted failure for this call, if any (consumed). */
  takeFailure(method: string, params: Record<string, unknown>): FakeSlackFailure | undefined {
    return takeScripted(this.failures, method, (failure) => !failure.when || failure.when(params));
  }
}
