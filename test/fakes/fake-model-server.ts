/**
 * A local HTTP server that speaks the Anthropic Messages API and OpenAI Chat Completions wire
 * formats (and OpenAI's audio transcriptions, and Gemini's OpenAI-compatible endpoint under
 * `/v1beta/openai/`), so tests drive the real SDKs. Replies are scripted; every request is recorded. A body
 * the real API would refuse for its thinking or tool-choice rules gets the API's 400 instead.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { anthropicErrorBody, anthropicEvents, anthropicKeepAlive, anthropicMessage, anthropicRequestProblem, anthropicStreamError } from './fake-anthropic-wire.ts';
import { openaiCompletion, openaiErrorBody, openaiEvents, openaiKeepAlive, openaiRequestProblem, openaiStreamError } from './fake-openai-wire.ts';
import { geminiErrorBody, geminiPathPrefix, geminiRequestProblem, isGeminiPath } from './fake-gemini-wire.ts';
import type { CacheStats, ErrorReply, FakeModelServerOptions, Protocol, RecordedRequest, ReplySpec, ScriptedReply, SseEvent } from './fake-model-types.ts';
import { createPromptCache, withCacheUsage } from './fake-prompt-cache.ts';
import { readTranscriptionRequest, transcriptionAnswer, type TranscriptionRequest, type TranscriptReply } from './fake-transcription-wire.ts';

export type {
  CacheStats,
  CacheUsage,
  FakeModelServerOptions,
  PromptCacheOptions,
  RecordedRequest,
  ReplySpec,
  ScriptedReply,
} from './fake-model-types.ts';
export type { TranscriptionRequest, TranscriptReply } from './fake-transcription-wire.ts';

/** A running fake model server. */
export interface FakeModelServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** What to pass as the Anthropic SDK `baseURL` / `ANTHROPIC_BASE_URL`. */
  anthropicBaseURL: string;
  /** What to pass as the OpenAI SDK `baseURL` / `OPENAI_BASE_URL` (ends with `/v1`). */
  openaiBaseURL: string;
  /**
   * What to pass as `GEMINI_BASE_URL`: Google's OpenAI-compatible endpoint, whose requests get
   * Gemini's answers (thought signatures, its usage and error shapes; see `fake-gemini-wire.ts`).
   */
  geminiBaseURL: string;
  /** Queue scripted replies, answered in order by whichever protocol asks next. */
  enqueue(...replies: ScriptedReply[]): void;
  /** Lets the replies held by `name` (`heldBy`) answer: those waiting now, and any that come later. */
  release(name: string): void;
  /** Reply used when the queue is empty (default: text "ok"). */
  setDefault(reply: ScriptedReply): void;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** Number of queued replies not yet used. */
  pending(): number;
  /** Queue answers of `POST /v1/audio/transcriptions`, in order (apart from the chat replies). */
  enqueueTranscript(...replies: TranscriptReply[]): void;
  /** Every transcription request, in order (default answer when none is queued: text "fake transcript"). */
  transcriptions: TranscriptionRequest[];
  /** Resolves once `count` requests in all have come in; rejects after `timeoutMs`. */
  waitForRequests(count: number, timeoutMs: number): Promise<void>;
  /**
   * Totals of the simulated prompt cache (option `promptCache`; all zero without it). Each
   * request's own numbers are on {@link RecordedRequest.cache}.
   */
  cacheStats(): CacheStats;
  /** Clears queue, requests and default, and empties the simulated prompt cache and its totals. */
  reset(): void;
  close(): Promise<void>;
}

const defaultReply: ReplySpec = { text: 'ok' };

/**
 * Starts a fake model server on a free port of 127.0.0.1.
 *
 * @example
 * const server = await startFakeModelServer({ promptCache: { minTokens: 1024 } });
 * // ... run a conversation against server.anthropicBaseURL ...
 * expect(server.cacheStats().readFraction).toBeGreaterThanOrEqual(0.9);
 */
export async function startFakeModelServer(options: FakeModelServerOptions = {}): Promise<FakeModelServer> {
  const promptCache =
    options.promptCache === undefined || options.promptCache === false
      ? undefined
      : createPromptCache(options.promptCache === true ? {} : options.promptCache);
  const queue: ScriptedReply[] = [];
  const requests: RecordedRequest[] = [];
  let fallback: ScriptedReply = defaultReply;
  let counter = 0;
  /** Waiters of `waitForRequests`, told of every request. */
  const arrivals = new Set<() => void>();
  // Cancels pending delays on close, so no timer keeps the process alive.
  const lifetime = new AbortController();
  /** The holds of `heldBy` replies, by name, each let go by `release`. */
  const holds = new Map<string, { released: Promise<void>; release: () => void }>();
  const holdOf = (name: string) => {
    let hold = holds.get(name);
    if (!hold) {
      let release = () => {};
      const released = new Promise<void>((resolve) => (release = resolve));
      hold = { released, release };
      holds.set(name, hold);
    }
    return hold;
  };

  const server = createServer((request, response) => {
    handle(request, response).catch(() => response.destroy());
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const bodyBytes = await readBody(request);
    const rawBody = bodyBytes.toString('utf8');
    const path = new URL(request.url ?? '/', 'http://fake').pathname;
    if (request.method === 'POST' && path.endsWith('/audio/transcriptions')) {
      await transcribe(request, response, bodyBytes);
      return;
    }
    const protocol: Protocol | undefined = path.endsWith('/v1/messages')
      ? 'anthropic'
      : path.endsWith('/chat/completions')
        ? 'openai'
        : undefined;
    if (request.method !== 'POST' || protocol === undefined) {
      sendJson(response, 404, { error: { type: 'not_found_error', message: `No route for ${request.method} ${path}` } });
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(rawBody);
    } catch {
      body = undefined;
    }
    const recorded: RecordedRequest = { protocol, path, headers: flattenHeaders(request), body, rawBody, receivedAt: Number(process.hrtime.bigint()) / 1e6 };
    requests.push(recorded);
    for (const arrived of arrivals) arrived();

    const gemini = isGeminiPath(path);
    const errorBody = (error: ErrorReply) => (protocol === 'anthropic' ? anthropicErrorBody(error) : gemini ? geminiErrorBody(error) : openaiErrorBody(error));
    if (!hasCredentials(recorded)) {
      sendJson(response, 401, errorBody({ status: 401, message: 'missing API key' }));
      return;
    }
    // A body the real API refuses (thinking and tool-choice rules) gets its 400, not a scripted reply.
    const problem = protocol === 'anthropic' ? anthropicRequestProblem(body) : (openaiRequestProblem(body) ?? (gemini ? geminiRequestProblem(body) : undefined));
    if (problem !== undefined) {
      sendJson(response, 400, errorBody({ status: 400, message: problem }));
      return;
    }
    const scripted = queue.shift() ?? fallback;
    let reply = typeof scripted === 'function' ? scripted(recorded) : scripted;
    if ('heldBy' in reply && reply.heldBy !== undefined) reply = { ...reply, holdUntil: holdOf(reply.heldBy).released };
    const heldAfter = 'heldAfterEvents' in reply && reply.heldAfterEvents ? { events: reply.heldAfterEvents.events, released: holdOf(reply.heldAfterEvents.by).released } : undefined;
    // An HTTP error means the provider never read the prompt: nothing cached, nothing counted.
    const cache = promptCache === undefined || 'error' in reply ? undefined : promptCache.measure(protocol, body);
    if (cache !== undefined) {
      recorded.cache = cache;
      reply = withCacheUsage(reply, cache);
    }
    const signal = AbortSignal.any([lifetime.signal, closedSignal(response)]);
    await answer(protocol, recorded, reply, response, signal, `${++counter}`, heldAfter);
  }

  const transcripts: TranscriptReply[] = [];
  const transcriptions: TranscriptionRequest[] = [];
  async function transcribe(request: IncomingMessage, response: ServerResponse, body: Buffer): Promise<void> {
    const headers = flattenHeaders(request);
    if (!/^Bearer \S+/.test(headers.authorization ?? '')) return sendJson(response, 401, openaiErrorBody({ status: 401, message: 'missing API key' }));
    const read = await readTranscriptionRequest(body, headers);
    if (!read) return sendJson(response, 400, openaiErrorBody({ status: 400, message: 'expected a multipart form with file and model' }));
    transcriptions.push(read);
    const { status, body: answer } = transcriptionAnswer(transcripts.shift() ?? { text: 'fake transcript' });
    sendJson(response, status, answer);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    anthropicBaseURL: url,
    openaiBaseURL: `${url}/v1`,
    geminiBaseURL: `${url}${geminiPathPrefix}`,
    requests,
    enqueue: (...replies) => void queue.push(...replies),
    release: (name) => holdOf(name).release(),
    setDefault: (reply) => void (fallback = reply),
    pending: () => queue.length,
    enqueueTranscript: (...replies) => void transcripts.push(...replies),
    transcriptions,
    waitForRequests: (count, timeoutMs) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (requests.length < count) return;
          arrivals.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          arrivals.delete(check);
          reject(new Error(`fake model: ${requests.length} requests after ${timeoutMs} ms, waited for ${count}`));
        }, timeoutMs);
        arrivals.add(check);
        check();
      }),
    cacheStats: () => promptCache?.stats() ?? { requests: 0, inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, readFraction: 0 },
    reset() {
      queue.length = 0;
      requests.length = 0;
      transcripts.length = 0;
      transcriptions.length = 0;
      fallback = defaultReply;
      promptCache?.reset();
      // Whatever a test left held answers now, and its names are free again.
      for (const hold of holds.values()) hold.release();
      holds.clear();
    },
    async close() {
      lifetime.abort();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function answer(
  protocol: Protocol,
  request: RecordedRequest,
  reply: ReplySpec,
  response: ServerResponse,
  signal: AbortSignal,
  id: string,
  heldAfter?: StreamPace['heldAfter'],
): Promise<void> {
  const body = (request.body ?? {}) as Record<string, unknown>;
  const model = typeof body.model === 'string' ? body.model : 'fake-model';
  const gemini = isGeminiPath(request.path);
  if ('error' in reply) {
    const { status, retryAfterSeconds, headers = {} } = reply.error;
    const extra: Record<string, string> = { ...headers };
    if (retryAfterSeconds !== undefined) extra['retry-after'] = String(retryAfterSeconds);
    const errorBody = protocol === 'anthropic' ? anthropicErrorBody(reply.error) : gemini ? geminiErrorBody(reply.error) : openaiErrorBody(reply.error);
    sendJson(response, status, errorBody, extra);
    return;
  }
  if ('streamError' in reply) {
    const prefix = protocol === 'anthropic' ? anthropicEvents({ text: 'partial answer' }, model, id) : openaiEvents({ text: 'partial answer' }, model, id, true);
    const events = prefix.slice(0, reply.afterEvents ?? 0);
    events.push(protocol === 'anthropic' ? anthropicStreamError(reply.streamError) : openaiStreamError(reply.streamError));
    await writeStream(response, events, {}, signal);
    return;
  }
  if (reply.hangMs !== undefined && !(await pause(reply.hangMs, signal))) return;
  if (reply.holdUntil !== undefined && !(await settledOrAborted(reply.holdUntil, signal))) return;
  if (body.stream !== true) {
    sendJson(response, 200, protocol === 'anthropic' ? anthropicMessage(reply, model, id) : openaiCompletion(reply, model, id, gemini));
    return;
  }
  const includeUsage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
  const events = protocol === 'anthropic' ? anthropicEvents(reply, model, id) : openaiEvents(reply, model, id, includeUsage, gemini);
  await writeStream(response, events, { ...reply, keepAlive: protocol === 'anthropic' ? anthropicKeepAlive : openaiKeepAlive, heldAfter }, signal);
}

/** How {@link writeStream} paces a stream. */
interface StreamPace {
  delayMs?: number;
  disconnectAfterEvents?: number;
  stallAfterHeadersMs?: number;
  stallAfterEvents?: { events: number; ms: number };
  keepAliveEveryMs?: number;
  /** The raw SSE text of the protocol's keep-alive. */
  keepAlive?: string;
  /** After this many events, nothing more until `released` settles. */
  heldAfter?: { events: number; released: Promise<unknown> };
}

async function writeStream(response: ServerResponse, events: SseEvent[], options: StreamPace, signal: AbortSignal): Promise<void> {
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  response.flushHeaders();
  const write = (text: string) => new Promise<void>((resolve) => response.write(text, () => resolve()));
  // A wait after the headers, with a keep-alive every `keepAliveEveryMs` when asked for.
  const wait = async (ms: number): Promise<boolean> => {
    const every = options.keepAliveEveryMs;
    if (every === undefined || options.keepAlive === undefined) return pause(ms, signal);
    for (let left = ms; left > 0; left -= every) {
      if (!(await pause(Math.min(every, left), signal))) return false;
      if (left > every) await write(options.keepAlive);
    }
    return true;
  };
  if (options.stallAfterHeadersMs !== undefined && !(await wait(options.stallAfterHeadersMs))) return;
  for (const [index, event] of events.entries()) {
    if (index > 0 && options.delayMs !== undefined && !(await wait(options.delayMs))) return;
    if (index > 0 && index === options.stallAfterEvents?.events && !(await wait(options.stallAfterEvents.ms))) return;
    if (index > 0 && index === options.heldAfter?.events && !(await settledOrAborted(options.heldAfter.released, signal))) return;
    if (signal.aborted) return;
    await write(`${event.event === undefined ? '' : `event: ${event.event}\n`}data: ${event.data}\n\n`);
    if (options.disconnectAfterEvents !== undefined && index + 1 >= options.disconnectAfterEvents) {
      response.socket?.destroy();
      return;
    }
  }
  response.end();
}

/** Waits; false when the server closed or the client went away meanwhile. */
async function pause(ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

/** Whether `promise` settled before `signal` aborted (the caller went away). */
async function settledOrAborted(promise: Promise<unknown>, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return false;
  const aborted = new Promise<boolean>((resolve) => signal.addEventListener('abort', () => resolve(false), { once: true }));
  return Promise.race([promise.then(() => !signal.aborted, () => !signal.aborted), aborted]);
}

function closedSignal(response: ServerResponse): AbortSignal {
  const controller = new AbortController();
  response.on('close', () => controller.abort());
  return controller.signal;
}

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  response.end(text);
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function flattenHeaders(request: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

function hasCredentials(request: RecordedRequest): boolean {
  return (request.headers['x-api-key'] ?? '') !== '' || /^Bearer \S+/.test(request.headers.authorization ?? '');
}
