/**
 * The OpenAI-compatible API as a channel adapter (platform `api`): `GET /v1/models` lists the
 * profiles as models, `POST /v1/chat/completions` (streamed or not) hands the newest user message
 * to the gateway as a message of the caller's conversation `api:<user>`, with the profile named
 * as `model`, and answers with what the gateway's turn sends that conversation. The turn goes the
 * way of every platform's (access, spending caps, dedupe, the delivery ledger, guardrails); tool
 * calls stay inside operator and the answer is the final text. The caller's bearer token is
 * checked by `gate`, which the gateway gives (with the login limiter), so this file knows no token.
 *
 * One request per caller at a time: a second waits for the first's turn to end, so every message
 * the conversation gets belongs to one request. The gateway tells the adapter when turns begin and
 * end (`turnStarted`, `turnEnded`): messages of a turn that is not a waiting request's (a scheduled
 * job's, one answered after a restart) are dropped, since no caller waits for them. A question for
 * approval is denied at once: nobody can press a button through the API.
 */
import { randomBytes } from 'node:crypto';
import type { ChannelAdapter, ChannelCapabilities, ChannelHandlers, ChannelRoute, ConversationAddress, InboundMessage, OutboundMessage, RouteConnection, SentMessage } from '../types.ts';
import { NotAcceptedError } from '../types.ts';
import { parseCommand } from '../web/web-inbound.ts';
import { errorResponse, failure } from './api-errors.ts';
import { Exchange, streamedAnswer } from './api-exchange.ts';
import { parseChatRequest, type ChatRequest } from './api-requests.ts';
import { completion, modelList, modelObject, turnFailure, usageOf, type ApiTurnEnd } from './api-wire.ts';

/** The platform name of the API. */
export const apiPlatform = 'api';

/** Options of {@link createApiChannel}. */
export interface ApiChannelOptions {
  /** Checks a request's bearer token: undefined lets it in, else the answer (401, 429). */
  gate(request: Request, connection: RouteConnection | undefined): Response | undefined;
  /** The profiles there are: the models. */
  models(): Promise<string[]>;
  /**
   * Longest a request waits for its turn to end (the gateway's turn deadline and a margin):
   * past it the caller gets a 504 and the next request of the caller goes ahead.
   */
  maxWaitMs: number;
  /**
   * Longest a streamed request's headers wait for the answer's first words (10 s by default): a
   * turn that fails before it has said anything is answered with the failure's own status.
   */
  headerHoldMs?: number;
  /** Where dropped messages and failed handlers are reported (never content). */
  log?(line: string): void;
  now?(): number;
}

/** The API adapter: routes, and the turn events the gateway reports. */
export interface ApiChannel extends ChannelAdapter {
  routes(): ChannelRoute[];
  /** A turn began in conversation `sessionKey`. */
  turnStarted(sessionKey: string, turnId: string): void;
  /** A turn ended in an API conversation. */
  turnEnded(end: ApiTurnEnd): void;
}

/** What the API can do: previews are how an answer streams; no buttons, files or typing. */
export const apiCapabilities: ChannelCapabilities = Object.freeze({
  edit: true,
  typing: false,
  buttons: false,
  threads: false,
  maxLength: 1_000_000,
  editIntervalMs: 50,
  commandMenu: false,
  maxFileBytes: 0,
});

/** Creates the API channel. */
export function createApiChannel(options: ApiChannelOptions): ApiChannel {
  return new ApiChannelAdapter(options);
}

/** One caller: their request being answered, and turns of their conversation no request waits for. */
interface Caller {
  /** Resolves when the caller's latest request is done: the next waits for it. */
  queue: Promise<void>;
  current?: Exchange;
  foreign: Set<string>;
  waiting: number;
}

const noUsage = usageOf({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });

class ApiChannelAdapter implements ApiChannel {
  readonly platform = apiPlatform;
  readonly capabilities = apiCapabilities;
  readonly #options: ApiChannelOptions;
  readonly #log: (line: string) => void;
  readonly #now: () => number;
  readonly #callers = new Map<string, Caller>();
  readonly #created: number;
  #handlers: ChannelHandlers | undefined;
  #nextId = 1;

  constructor(options: ApiChannelOptions) {
    this.#options = options;
    this.#log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
    this.#now = options.now ?? Date.now;
    this.#created = Math.floor(this.#now() / 1000);
  }

  async start(handlers: ChannelHandlers): Promise<void> {
    this.#handlers = handlers;
  }

  async stop(): Promise<void> {
    this.#handlers = undefined;
    for (const caller of this.#callers.values()) caller.current?.end({ answered: false, failure: failure(503, 'The gateway is stopping; try again in a moment.', 'server_error', 'service_unavailable') });
  }

  routes(): ChannelRoute[] {
    return [
      { method: 'GET', path: '/v1/models', handler: async (request, connection) => this.#gate(request, connection) ?? Response.json(modelList(await this.#options.models(), this.#created)) },
      { method: 'GET', path: '/v1/models/:model', handler: (request, connection) => this.#model(request, connection) },
      { method: 'POST', path: '/v1/chat/completions', handler: (request, connection) => this.#completion(request, connection) },
    ];
  }

  async send(address: ConversationAddress, message: OutboundMessage): Promise<SentMessage> {
    const id = `m${this.#nextId++}`;
    const exchange = this.#waiting(address);
    if (exchange) this.#take(exchange, id, message);
    message.onPart?.([id], 1);
    return { ids: [id] };
  }

  /** What a message the gateway sends the waiting request's conversation adds to its answer. */
  #take(exchange: Exchange, id: string, message: OutboundMessage): void {
    const text = withFileNotes(message);
    if (message.approval) return this.#deny(exchange, id);
    if (message.preview) {
      exchange.previewId ??= id;
      return exchange.answer.preview(text, message.notice);
    }
    // The reply the delivery ledger recorded carries its entry's id; a file sent after it, `<id>:file:<n>`.
    if (exchange.inTurn && message.idempotencyKey !== undefined && !message.idempotencyKey.includes(':file:')) return exchange.answer.final(text);
    if (exchange.inTurn) return exchange.answer.after(text);
    // Before any turn began: a command's answer (`/new`, `/status`) or why the message was not taken.
    exchange.answer.final(text);
    exchange.end({ answered: true, usage: noUsage });
  }

  async edit(address: ConversationAddress, messageId: string, message: OutboundMessage): Promise<void> {
    const exchange = this.#waiting(address);
    if (!exchange) return;
    if (message.preview) exchange.answer.preview(message.text, message.notice);
    // The preview finished without an answer replacing it: a failure told, "Stopped.".
    else if (messageId === exchange.previewId) exchange.answer.after(message.text);
  }

  async typing(): Promise<void> {}

  turnStarted(sessionKey: string, turnId: string): void {
    if (!sessionKey.startsWith(`${apiPlatform}:`)) return;
    const caller = this.#caller(sessionKey.slice(apiPlatform.length + 1));
    if (caller.current?.turnId === turnId) caller.current.inTurn = true;
    // Another turn (a job's): its messages are nobody's, also once a request comes meanwhile.
    else caller.foreign.add(turnId);
  }

  turnEnded(end: ApiTurnEnd): void {
    const user = end.sessionKey.startsWith(`${apiPlatform}:`) ? end.sessionKey.slice(apiPlatform.length + 1) : undefined;
    const caller = user === undefined ? undefined : this.#callers.get(user);
    if (!caller || user === undefined) return;
    const exchange = caller.current;
    if (exchange?.turnId !== end.turnId) {
      caller.foreign.delete(end.turnId);
      this.#forgetIdle(user, caller);
      return;
    }
    const answered = end.status === 'ok' || end.status === 'stopped';
    exchange.end(answered ? { answered: true, usage: usageOf(end.tokens) } : { answered: false, failure: turnFailure(end, exchange.answer.aside) });
  }

  /** The exchange a message to `address` belongs to; undefined (and the message dropped) when none waits for it. */
  #waiting(address: ConversationAddress): Exchange | undefined {
    const caller = address.platform === apiPlatform ? this.#callers.get(address.conversationId) : undefined;
    const exchange = caller?.current;
    if (exchange && !exchange.done && caller!.foreign.size === 0) return exchange;
    this.#log(`api: a message for api:${address.conversationId} was dropped: no request waits for it (a scheduled job's, or one answered after a restart)`);
    return undefined;
  }

  /** The caller `user`, remembered from now on (until idle again). */
  #caller(user: string): Caller {
    let caller = this.#callers.get(user);
    if (!caller) this.#callers.set(user, (caller = { queue: Promise.resolve(), foreign: new Set(), waiting: 0 }));
    return caller;
  }

  /** Forgets a caller with no request and no turn: the map holds only callers something is happening for. */
  #forgetIdle(user: string, caller: Caller): void {
    if (caller.waiting === 0 && caller.foreign.size === 0 && this.#callers.get(user) === caller) this.#callers.delete(user);
  }

  #gate(request: Request, connection: RouteConnection | undefined): Response | undefined {
    return this.#options.gate(request, connection);
  }

  async #model(request: Request, connection: RouteConnection | undefined): Promise<Response> {
    const refused = this.#gate(request, connection);
    if (refused) return refused;
    const name = decodeURIComponent(new URL(request.url).pathname.split('/').pop() ?? '');
    if (!(await this.#options.models()).includes(name)) return errorResponse(unknownModel(name));
    return Response.json(modelObject(name, this.#created));
  }

  async #completion(request: Request, connection: RouteConnection | undefined): Promise<Response> {
    const refused = this.#gate(request, connection);
    if (refused) return refused;
    const parsed = await parseChatRequest(request);
    if ('status' in parsed) return errorResponse(parsed);
    if (!(await this.#options.models()).includes(parsed.model)) return errorResponse(unknownModel(parsed.model));
    const requestId = randomBytes(12).toString('hex');
    const exchange = new Exchange(this.#inbound(parsed, requestId), { id: `chatcmpl-${requestId}`, created: Math.floor(this.#now() / 1000), model: parsed.model });
    const taken = await this.#hand(exchange, request.signal);
    if (taken) return taken;
    if (!parsed.stream) {
      const end = await exchange.ended;
      return end.answered ? Response.json(completion(exchange.head, exchange.answer.content, end.usage), { headers: { 'cache-control': 'no-store' } }) : errorResponse(end.failure);
    }
    // The headers wait for the first words: a turn that fails before saying anything gets its own status.
    let hold: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([exchange.firstPiece, new Promise<void>((resolve) => (hold = setTimeout(resolve, this.#options.headerHoldMs ?? 10_000)))]);
    clearTimeout(hold);
    if (exchange.done) {
      const end = await exchange.ended;
      if (!end.answered && exchange.answer.content === '') return errorResponse(end.failure);
    }
    return streamedAnswer(exchange, parsed.includeUsage);
  }

  /**
   * Hands the exchange's message to the gateway once the caller's previous request is done;
   * undefined once it is taken (the exchange then ends with its turn), else the answer to give.
   */
  async #hand(exchange: Exchange, signal: AbortSignal): Promise<Response | undefined> {
    const user = exchange.message.sender.id;
    const caller = this.#caller(user);
    const previous = caller.queue;
    let release = () => {};
    caller.queue = new Promise((resolve) => (release = resolve));
    caller.waiting++;
    const done = () => {
      release();
      caller.waiting--;
      this.#forgetIdle(user, caller);
    };
    await previous;
    const handlers = this.#handlers;
    if (signal.aborted || !handlers) {
      done();
      return errorResponse(failure(503, 'The gateway is not taking requests right now.', 'server_error', 'service_unavailable'));
    }
    caller.current = exchange;
    const deadline = setTimeout(() => {
      // A turn still running past its deadline is nobody's from here: the next request must not get its messages.
      if (exchange.inTurn) caller.foreign.add(exchange.turnId);
      exchange.end({ answered: false, failure: failure(504, 'No answer came within the gateway\'s time for a turn.', 'server_error', 'timeout') });
    }, this.#options.maxWaitMs);
    deadline.unref?.();
    void exchange.ended.then(() => {
      clearTimeout(deadline);
      if (caller.current === exchange) caller.current = undefined;
      done();
    });
    try {
      await handlers.onMessage(exchange.message);
      return undefined;
    } catch (error) {
      const notTaken = error instanceof NotAcceptedError;
      if (!notTaken) this.#log(`api: message handler failed: ${error instanceof Error ? error.message : String(error)}`);
      const refusal = notTaken ? failure(503, 'The gateway cannot take messages right now; try again.', 'server_error', 'service_unavailable') : failure(500, 'The message could not be handed to the gateway.', 'server_error', 'internal_error');
      exchange.end({ answered: false, failure: refusal });
      return errorResponse(refusal);
    }
  }

  /** The request as a message of the caller's conversation. */
  #inbound(request: ChatRequest, requestId: string): InboundMessage {
    const command = parseCommand(request.text);
    return {
      id: requestId,
      dedupeKey: `${apiPlatform}:${request.user}:${requestId}`,
      sessionKey: `${apiPlatform}:${request.user}`,
      address: { platform: apiPlatform, conversationId: request.user },
      scope: 'dm',
      sender: { id: request.user, name: request.user },
      text: request.text,
      attachments: request.images,
      mentioned: true,
      ...(command && request.images.length === 0 ? { command } : {}),
      profile: request.model,
      receivedAt: this.#now(),
      raw: { model: request.model, user: request.user },
    };
  }

  /** Denies the question the turn asks (nobody can answer it through the API), as the caller. */
  #deny(exchange: Exchange, messageId: string): void {
    const { message } = exchange;
    const action = { id: `deny-${messageId}`, dedupeKey: `${message.dedupeKey}:deny:${messageId}`, sessionKey: message.sessionKey, address: message.address, sender: message.sender, data: 'deny', messageId, raw: null };
    this.#handlers?.onAction(action).catch((error: unknown) => this.#log(`api: the approval question was not denied: ${error instanceof Error ? error.message : String(error)}`));
  }
}

/** 404 for a model that is not a profile. */
function unknownModel(name: string) {
  return failure(404, `The model "${name.slice(0, 64)}" does not exist: the models are the gateway's profiles (GET /v1/models).`, 'invalid_request_error', 'model_not_found', 'model');
}

/** The message's text, with a line for each file it carries (the API answers with text alone). */
function withFileNotes(message: OutboundMessage): string {
  const notes = (message.files ?? []).map((file) => `[file ${file.name}: not sent, the API answers with text only]`);
  return [message.text, ...notes].filter((part) => part !== '').join('\n');
}
