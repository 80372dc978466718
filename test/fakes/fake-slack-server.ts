/**
 * A protocol-faithful fake of Slack on plain node:http, for real bolt / WebClient clients:
 * `POST /api/<method>` with a form or JSON body and the token in `Authorization: Bearer` (or a
 * `token` field), answering `{ ok: true, … }` or `{ ok: false, error }` with HTTP 200 as Slack
 * does, HTTP 429 with `Retry-After` for rate limits; private file downloads that need the bot
 * token (else a redirect to sign-in, as Slack does); `response_url` posts; the bot's file uploads
 * (an `upload_url` on the same port, see `fake-slack-uploads.ts`); assistant threads' status,
 * prompts and titles and text streams (`chat.startStream` …, refusable like a workspace without
 * them: `refuseStreaming()`; see `fake-slack-assistant.ts`). It keeps each channel's
 * messages as they stand after updates, and signs and sends what Slack posts to an app (see
 * `fake-slack-events.ts`, `fake-slack-people.ts`), or delivers it over Socket Mode on the same
 * port (`slack.socket`, see `fake-slack-socket.ts`).
 *
 * @example
 * const slack = await startFakeSlackServer();
 * const client = new webApi.WebClient(slack.bot.token, { slackApiUrl: slack.apiUrl });
 * await slack.send(url, slack.envelope(slack.personMessage({ channel: 'C1', text: 'hi' })));
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sendSigned, type SendOptions, type SendResult, type SlackRequest } from './fake-slack-events.ts';
import { slackMethods, type SlackAnswer } from './fake-slack-methods.ts';
import { displayMessage, type DisplayedMessage } from './fake-slack-mrkdwn.ts';
import { peopleBuilders, type FakePeopleBuilders } from './fake-slack-people.ts';
import { attachFakeSocketMode, type FakeSlackSocket } from './fake-slack-socket.ts';
import { FakeSlackState, type FakeAssistantCall, type FakeSlackBot, type FakeSlackCall, type FakeSlackFailure, type FakeSlackFile, type FakeSlackMessage, type FakeSlackNotice, type FakeSlackSharedFile } from './fake-slack-state.ts';
import { receiveUpload, uploadPathPrefix } from './fake-slack-uploads.ts';

export type { FakeAssistantCall, FakeSlackBot, FakeSlackCall, FakeSlackFailure, FakeSlackFile, FakeSlackMessage, FakeSlackNotice, FakeSlackSharedFile } from './fake-slack-state.ts';
export type { DisplayedMessage } from './fake-slack-mrkdwn.ts';
export type { SendOptions, SendResult, SlackRequest } from './fake-slack-events.ts';
export type { FakeSlackSocket, FakeSocketAck, FakeSocketConnection, FakeSocketEnvelope } from './fake-slack-socket.ts';

/** A running fake Slack. */
export interface FakeSlack extends FakePeopleBuilders {
  /** `http://127.0.0.1:<port>/api/`: what bolt's `clientOptions.slackApiUrl` takes. */
  readonly apiUrl: string;
  readonly origin: string;
  readonly bot: FakeSlackBot;
  /** The app's signing secret (what `send` signs with). */
  readonly signingSecret: string;
  /** Socket Mode: the app token, connections, envelopes and their acknowledgements. */
  readonly socket: FakeSlackSocket;
  readonly calls: readonly FakeSlackCall[];
  readonly ephemerals: readonly FakeSlackNotice[];
  readonly responses: readonly FakeSlackNotice[];
  callsOf(method: string): FakeSlackCall[];
  /** The bot's messages in a channel (only the thread `threadTs`, or only top-level when null), oldest first. */
  botMessages(channel: string, threadTs?: string | null): FakeSlackMessage[];
  /**
   * Files the bot shared (`files.completeUploadExternal`) into a channel (only the thread
   * `threadTs`, or only top-level when null), oldest first.
   */
  sharedFiles(channel: string, threadTs?: string | null): FakeSlackSharedFile[];
  /** A stored message (anyone's). */
  message(channel: string, ts: string): FakeSlackMessage | undefined;
  /** How Slack shows a message now. */
  display(message: FakeSlackMessage): DisplayedMessage;
  /**
   * Answers the next call(s) of `method` with an error, a status, or a dropped connection
   * (`upload_url`: the POST of a file's bytes to its upload URL).
   */
  failNext(method: string, failure: FakeSlackFailure): void;
  /** Refuses `chat.startStream`, `appendStream` and `stopStream` (`unknown_method`) from now on, like a workspace without them (default: they work). */
  refuseStreaming(): void;
  /** The bot token's scopes that answers list in `x-oauth-scopes` (settable, as reinstalling the app with other scopes; default: the manifest's). */
  grantedScopes: string[];
  /** What the app set in assistant threads (status, suggested prompts, titles), oldest first. */
  readonly assistant: readonly FakeAssistantCall[];
  /** Signs and POSTs a request to the app at `url` as Slack would. */
  send(url: string, request: SlackRequest, options?: Omit<SendOptions, 'signingSecret'>): Promise<SendResult>;
  /** Serves a file at `path` (below `/files-pri/`) to the bot's token, as a recorded payload names it. */
  addFile(file: FakeSlackFile): void;
  /** Resolves with the predicate's first truthy value, checked on every change; rejects after `timeoutMs`. */
  waitFor<T>(predicate: (slack: FakeSlack) => T | undefined | null | false, timeoutMs?: number): Promise<T>;
  close(): Promise<void>;
}

const jsonFields = new Set(['blocks', 'attachments', 'metadata', 'prompts', 'chunks', 'loading_messages']);

async function readParams(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const raw = Buffer.concat(chunks).toString('utf8');
  if (raw === '') return {};
  if ((request.headers['content-type'] ?? '').startsWith('application/json')) return JSON.parse(raw) as Record<string, unknown>;
  const params: Record<string, unknown> = {};
  for (const [name, value] of new URLSearchParams(raw)) {
    params[name] = jsonFields.has(name) ? (() => { try { return JSON.parse(value) as unknown; } catch { return value; } })() : value;
  }
  return params;
}

function answer(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers }).end(JSON.stringify(body));
}

/** Starts a fake Slack on a free local port. */
export async function startFakeSlackServer(options: Partial<FakeSlackBot> = {}): Promise<FakeSlack> {
  const state = new FakeSlackState({ token: 'xoxb-1111-2222-FakeBotTokenForTests', userId: 'U0BOT0001', botId: 'B0BOT0001', teamId: 'T0FAKE001', appId: 'A0APP0001', ...options });
  let origin = '';

  async function callMethod(request: IncomingMessage, response: ServerResponse, method: string): Promise<void> {
    const params = await readParams(request);
    const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    const token = bearer ?? (typeof params.token === 'string' ? params.token : undefined);
    const call: FakeSlackCall = { method, params, status: 200 };
    state.calls.push(call);
    const failure = state.takeFailure(method, params);
    let body: SlackAnswer;
    if (failure && 'dropConnection' in failure) {
      if (failure.afterCarryingOut && token === state.bot.token) slackMethods[method]?.(state, params, origin);
      call.status = 0;
      state.notify();
      response.socket?.destroy();
      return;
    }
    if (failure && 'status' in failure) {
      call.status = failure.status;
      if (failure.status === 429) call.error = 'ratelimited';
      state.notify();
      const headers: Record<string, string> = failure.status === 429 ? { 'retry-after': String(failure.retryAfter ?? 1) } : {};
      if (failure.body !== undefined) response.writeHead(failure.status, { 'content-type': 'text/plain', ...headers }).end(failure.body);
      else answer(response, failure.status, failure.status === 429 ? { ok: false, error: 'ratelimited' } : { ok: false, error: 'service_unavailable' }, headers);
      return;
    }
    if (failure) body = { ok: false, error: failure.error };
    else if (!token) body = { ok: false, error: 'not_authed' };
    else if (method === 'apps.connections.open' || token === socketMode.appToken) body = socketMode.appMethod(method, token);
    else if (token !== state.bot.token) body = { ok: false, error: 'invalid_auth' };
    else body = slackMethods[method]?.(state, params, origin) ?? { ok: false, error: 'unknown_method', req_method: method };
    if (!body.ok) call.error = body.error;
    state.notify();
    // Slack lists a token's scopes on every answer to it (what `operator doctor` reads from auth.test).
    answer(response, 200, body, token === state.bot.token ? { 'x-oauth-scopes': state.grantedScopes.join(',') } : {});
  }

  function serveFile(request: IncomingMessage, response: ServerResponse, path: string): void {
    const file = [...state.files.values()].find((candidate) => candidate.path === path || candidate.path.replace('/download/', '/') === path);
    if (!file) return answer(response, 404, { ok: false, error: 'file_not_found' });
    if (request.headers.authorization !== `Bearer ${state.bot.token}`) {
      response.writeHead(302, { location: `${origin}/?redir=${encodeURIComponent(path)}` }).end();
      return;
    }
    response.writeHead(200, { 'content-type': file.mimetype, 'content-length': file.bytes.length }).end(file.bytes);
  }

  async function recordResponse(request: IncomingMessage, response: ServerResponse, path: string): Promise<void> {
    const body = await readParams(request);
    state.responses.push({ text: typeof body.text === 'string' ? body.text : '', responseUrl: `${origin}${path}`, body });
    state.notify();
    response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  }

  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname;
    const method = /^\/api\/([A-Za-z.]+)$/.exec(path)?.[1];
    const fail = (error: unknown) => {
      if (!response.headersSent) answer(response, 200, { ok: false, error: 'invalid_arguments', detail: String(error) });
    };
    if (method && request.method === 'POST') return void callMethod(request, response, method).catch(fail);
    if (path.startsWith('/files-pri/') && request.method === 'GET') return serveFile(request, response, decodeURI(path));
    if (/^\/(actions|commands)\/\d+$/.test(path) && request.method === 'POST') return void recordResponse(request, response, path).catch(fail);
    if (path.startsWith(uploadPathPrefix) && request.method === 'POST') return void receiveUpload(state, request, response, path).catch(fail);
    answer(response, 404, { ok: false, error: 'unknown_method' });
  });
  const socketMode = attachFakeSocketMode(server, state, () => origin);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const slack: FakeSlack = {
    ...peopleBuilders(state, () => origin),
    apiUrl: `${origin}/api/`,
    origin,
    bot: state.bot,
    signingSecret: 'fake-signing-secret-0123456789abcdef',
    socket: socketMode,
    calls: state.calls,
    ephemerals: state.ephemerals,
    responses: state.responses,
    callsOf: (method) => state.calls.filter((call) => call.method === method),
    botMessages: (channel, threadTs) =>
      state.messages.filter((message) => message.channel === channel && message.user === state.bot.userId && (threadTs === undefined || (message.threadTs ?? null) === threadTs)),
    sharedFiles: (channel, threadTs) => state.sharedFiles.filter((file) => file.channel === channel && (threadTs === undefined || (file.threadTs ?? null) === threadTs)),
    message: (channel, ts) => state.message(channel, ts),
    display: (message) => displayMessage(message),
    failNext(method, failure) {
      const queue = state.failures.get(method) ?? [];
      queue.push(failure);
      state.failures.set(method, queue);
    },
    refuseStreaming: () => void (state.streamingRefused = true),
    get grantedScopes() {
      return state.grantedScopes;
    },
    set grantedScopes(scopes) {
      state.grantedScopes = scopes;
    },
    assistant: state.assistant,
    send: (url, request, sendOptions = {}) => sendSigned(url, request, { ...sendOptions, signingSecret: slack.signingSecret }),
    addFile: (file) => void state.files.set(file.id, file),
    waitFor: (predicate, timeoutMs = 30_000) => state.waitFor(() => predicate(slack), timeoutMs, 'fake Slack'),
    close: () =>
      new Promise<void>((resolve) => {
        socketMode.close();
        server.close(() => resolve());
        setImmediate(() => server.closeAllConnections());
      }),
  };
  return slack;
}
