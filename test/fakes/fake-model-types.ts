/** Types of the fake model server (see `fake-model-server.ts`). */

/** Which wire format a request used. */
export type Protocol = 'anthropic' | 'openai';

/** One request the fake server received. */
export interface RecordedRequest {
  protocol: Protocol;
  path: string;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** Parsed JSON body (`undefined` when the body is not JSON). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  /** The body exactly as sent. */
  rawBody: string;
  /** `process.hrtime` in ms once the body was read (the monotonic clock benchmarks compare across processes). */
  receivedAt?: number;
  /**
   * What the simulated provider prompt cache made of this request (only with the server's
   * `promptCache` option, and only for requests answered without an HTTP error). Set after the
   * scripted reply is chosen, so a reply function does not see it yet.
   */
  cache?: CacheUsage;
}

/** Input tokens of one request as a provider prompt cache would count them. */
export interface CacheUsage {
  /** All input tokens, cached ones included. */
  inputTokens: number;
  /** Tokens served from the cache. */
  cacheReadTokens: number;
  /** Tokens written to the cache (Anthropic only; OpenAI does not report writes). */
  cacheWriteTokens: number;
}

/** Totals of the simulated prompt cache since the server started or was last reset. */
export interface CacheStats {
  /** Requests the cache simulation measured. */
  requests: number;
  /** All input tokens, cached ones included. */
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** `cacheReadTokens / inputTokens` (0 before any input). */
  readFraction: number;
}

/** Settings of the simulated provider prompt cache (see `fake-prompt-cache.ts`). */
export interface PromptCacheOptions {
  /** Shortest cacheable prefix in tokens (default 1024, the documented minimum of most models). */
  minTokens?: number;
  /** Clock in milliseconds for cache lifetimes (default `Date.now`). */
  now?: () => number;
}

/** Options of `startFakeModelServer`. */
export interface FakeModelServerOptions {
  /**
   * Simulate the providers' prompt caches: usage replies report cached tokens computed from the
   * request (unless the scripted reply sets input usage), and `cacheStats()` sums them.
   * Off by default.
   */
  promptCache?: boolean | PromptCacheOptions;
}

/** What the fake model answers. */
export type ReplySpec =
  | {
      text?: string;
      thinking?: { text: string; signature: string };
      /**
       * Anthropic only: `redacted_thinking` blocks with this encrypted data, after the thinking
       * (reasoning the safety systems flagged, which the API sends encrypted and wants back as is).
       */
      redactedThinking?: string[];
      /**
       * `thoughtSignature`: Gemini's signature of the call (`extra_content.google.thought_signature`);
       * a reply to Gemini's endpoint gives its first call one of its own unless set.
       */
      toolCalls?: { id?: string; name: string; arguments: Record<string, unknown>; thoughtSignature?: string }[];
      /** `reasoning`: thought tokens, which Gemini's endpoint counts in `total_tokens` only. */
      usage?: { input?: number; output?: number; cacheRead?: number; cacheWrite?: number; reasoning?: number };
      /** Provider-native stop reason override (`end_turn`, `max_tokens`, `length`, ...). */
      stopReason?: string;
      /** Text and arguments are split into chunks of this many characters (default 8). */
      chunkSize?: number;
      /** The text's first chunk holds this many characters (the rest follow `chunkSize` at a time). */
      firstChunkSize?: number;
      /** Pause between SSE events (slow stream). */
      delayMs?: number;
      /** Destroy the socket after this many SSE events (mid-stream disconnect). */
      disconnectAfterEvents?: number;
      /** Wait this long before sending headers. */
      hangMs?: number;
      /** Send nothing (no headers) until this settles: a provider that hangs until the test lets it answer. */
      holdUntil?: Promise<unknown>;
      /**
       * Send nothing (no headers) until the test calls `release(name)` with this name: `holdUntil`
       * for the tests in workerd, from where no promise crosses to the fake.
       */
      heldBy?: string;
      /**
       * Send this many SSE events, then nothing more until the test calls `release(by)`: a stream
       * halfway through, held for as long as the test needs (its first words must have arrived
       * somewhere before the rest is let go).
       */
      heldAfterEvents?: { events: number; by: string };
      /** Send the headers, then wait this long before the first SSE event (a provider that stalls after answering). */
      stallAfterHeadersMs?: number;
      /** Send this many SSE events, then wait `ms` before the rest (a stream that falls silent midway). */
      stallAfterEvents?: { events: number; ms: number };
      /**
       * While waiting after the headers (`stallAfterHeadersMs`, `stallAfterEvents`, `delayMs`), send
       * a keep-alive this often: an Anthropic `ping` event, or for OpenAI an SSE comment line (as
       * compatible servers send while a model thinks). The SDKs hand neither on.
       */
      keepAliveEveryMs?: number;
    }
  | {
      error: {
        status: number;
        message?: string;
        type?: string;
        code?: string;
        retryAfterSeconds?: number;
        headers?: Record<string, string>;
      };
    }
  | {
      /** An SSE error event (Anthropic `event: error`; OpenAI an error chunk) after some events. */
      streamError: { type: string; message: string };
      afterEvents?: number;
    };

/** A scripted reply, or a function choosing one from the request. */
export type ScriptedReply = ReplySpec | ((request: RecordedRequest) => ReplySpec);

/** The text reply variant of {@link ReplySpec}. */
export type MessageReply = Exclude<ReplySpec, { error: unknown } | { streamError: unknown }>;

/** The error reply variant of {@link ReplySpec}. */
export type ErrorReply = Extract<ReplySpec, { error: unknown }>['error'];

/** One server-sent event: optional `event:` name and the `data:` payload. */
export interface SseEvent {
  event?: string;
  data: string;
}

/** Splits text into chunks of `size` characters (at least one chunk, possibly empty). */
export function chunk(text: string, size: number): string[] {
  const chunks: string[] = [];
  for (let index = 0; index < text.length; index += size) chunks.push(text.slice(index, index + size));
  return chunks;
}

/** Default chunk size: small, so tool arguments really arrive split. */
export const defaultChunkSize = 8;
