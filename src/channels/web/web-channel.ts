/**
 * The local web chat as a channel adapter. The gateway's HTTP server mounts its routes; a browser
 * talks to it with plain `fetch` (messages, button presses, the Stop button, history) and
 * Server-Sent Events (bot messages, edits, files, typing); files the bot sent are downloaded from
 * `/web/files/`. Markdown is rendered to safe HTML here, on the server (see `renderWebHtml`).
 */
import { randomBytes } from 'node:crypto';
import { readOutboundFile } from '../read-outbound-file.ts';
import { DeliveryError, NotAcceptedError } from '../types.ts';
import type {
  ChannelAction,
  ChannelAdapter,
  ChannelCapabilities,
  ChannelHandlers,
  ChannelRoute,
  ConversationAddress,
  OutboundFile,
  OutboundMessage,
  SentMessage,
} from '../types.ts';
import { approvalCard } from './approval-card.ts';
import { EventHub } from './event-hub.ts';
import type * as RenderHtml from './format/render-html.ts';
import { renderWebPage } from './page.ts';
import { toChannelAction, toInboundMessage, toStopCommand, webPlatform, webSessionKey } from './web-inbound.ts';
import { actionBodySchema, clientIdPattern, errorResponse, jsonResponse, messageBodySchema, messageIdPattern, parseClientIdQuery, parseJsonBody, stopBodySchema } from './web-requests.ts';
import { splitText } from './split-text.ts';
import { fileIdPattern, fileResponse, WebFileStore } from './web-files.ts';

/** Options of {@link createWebChannel}. */
export interface WebChannelOptions {
  /** Where the page is served (`/` by default); the endpoints live under `<basePath>/web/`. */
  basePath?: string;
  /** Interval of the SSE heartbeat comment, in ms (15,000 by default). */
  heartbeatMs?: number;
  /** Events kept per client while none of its pages is connected (200 by default). */
  bufferLimit?: number;
  /** Disconnected clients whose buffer is kept (1,000 by default; the least recent go first). */
  maxBufferedClients?: number;
  /**
   * Bytes of sent files kept in memory for download (64 MiB by default); the oldest go first, and
   * their links answer 404. A file larger than this is refused.
   */
  fileMemoryBytes?: number;
  /**
   * The gateway puts a login in front of the page (see the network edge): the page offers to log
   * out, and goes back to the login page when a request says its session has ended (401).
   */
  login?: boolean;
  /** Where failures of the handlers are reported (stderr by default). Never message content. */
  log?: (line: string) => void;
  /** The clock for `receivedAt` (tests). */
  now?: () => number;
}

/** The web chat adapter: a {@link ChannelAdapter} that always has routes, plus introspection. */
export interface WebChannel extends ChannelAdapter {
  routes(): ChannelRoute[];
  /** Open event streams of one client, or of all clients. */
  connectionCount(clientId?: string): number;
  /** Events waiting for a client's next connection. */
  bufferedCount(clientId: string): number;
}

/** What the web chat can do. */
export const webCapabilities: ChannelCapabilities = Object.freeze({
  edit: true,
  typing: true,
  buttons: true,
  threads: false,
  maxLength: 100_000,
  editIntervalMs: 100,
  commandMenu: false,
  // Files are kept in memory (64 MiB in all by default): 20 MiB each leaves room for a few.
  maxFileBytes: 20 * 1024 * 1024,
});

/** `''` for the root, else `/segment[/segment...]` without a trailing slash. */
function normalizeBasePath(basePath: string | undefined): string {
  const trimmed = (basePath ?? '').trim().replace(/\/+$/, '');
  if (trimmed === '') return '';
  return trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

/**
 * Creates the web chat channel (platform `web`). Each browser is one person in a direct
 * conversation with session key `web:<clientId>`.
 *
 * @example
 * const web = createWebChannel();
 * for (const route of web.routes()) app.on(route.method, route.path, (c) => route.handler(c.req.raw));
 * await web.start({ onMessage, onAction, history });
 */
export function createWebChannel(options: WebChannelOptions = {}): WebChannel {
  return new WebChannelAdapter(options);
}

class WebChannelAdapter implements WebChannel {
  readonly platform = webPlatform;
  readonly capabilities = webCapabilities;
  readonly #base: string;
  readonly #hub: EventHub;
  readonly #files: WebFileStore;
  readonly #log: (line: string) => void;
  readonly #now: () => number;
  readonly #login: boolean;
  readonly #idPrefix = `b${randomBytes(4).toString('hex')}`;
  #nextId = 1;
  #handlers: ChannelHandlers | undefined;
  #stopped = false;
  #page: ReturnType<typeof renderWebPage> | undefined;

  constructor(options: WebChannelOptions) {
    this.#base = normalizeBasePath(options.basePath);
    this.#hub = new EventHub({
      heartbeatMs: options.heartbeatMs ?? 15_000,
      bufferLimit: options.bufferLimit ?? 200,
      maxBufferedClients: options.maxBufferedClients ?? 1_000,
      maxQueuedBytes: 8 * 1024 * 1024,
    });
    this.#files = new WebFileStore(options.fileMemoryBytes ?? 64 * 1024 * 1024);
    this.#log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
    this.#now = options.now ?? Date.now;
    this.#login = options.login ?? false;
  }

  async start(handlers: ChannelHandlers): Promise<void> {
    this.#handlers = handlers;
    this.#stopped = false;
  }

  async stop(): Promise<void> {
    this.#handlers = undefined;
    this.#stopped = true;
    this.#hub.closeAll();
    this.#files.clear();
  }

  /** Loads the Markdown renderer (and marked) once the gateway is ready, before the first answer needs it. */
  async warm(): Promise<void> {
    await loadRenderer();
  }

  async send(address: ConversationAddress, message: OutboundMessage): Promise<SentMessage> {
    const clientId = this.#clientOf(address);
    const { renderWebHtml } = await loadRenderer();
    const files = message.files ?? [];
    // Files alone: no text part at all.
    const chunks = files.length > 0 && message.text.trim() === '' ? [] : splitText(message.text, this.capabilities.maxLength);
    const ids: string[] = [];
    /** Notes a delivered part (the caller records progress of a long reply). */
    const delivered = (id: string) => {
      ids.push(id);
      message.onPart?.(ids, chunks.length + files.length);
    };
    for (let index = message.skipParts ?? 0; index < chunks.length + files.length; index++) {
      const text = chunks[index];
      if (text === undefined) {
        try {
          delivered(await this.#sendFile(clientId, files[index - chunks.length]!));
        } catch (error) {
          throw error instanceof DeliveryError ? error.withDelivered(ids) : error;
        }
        continue;
      }
      const last = index === chunks.length - 1;
      const buttons = last && message.buttons ? { buttons: message.buttons } : {};
      const html = renderWebHtml(text);
      if (index === 0 && message.replace !== undefined && messageIdPattern.test(message.replace)) {
        this.#hub.publish(clientId, { type: 'update', id: message.replace, text, html, ...buttons });
        delivered(message.replace);
        continue;
      }
      const id = this.#newId();
      // The card goes with the buttons that answer it.
      const approval = last && message.approval ? { approval: approvalCard(message.approval) } : {};
      this.#hub.publish(clientId, { type: 'message', id, text, html, ...buttons, ...approval, ...(index === 0 && message.replyTo !== undefined ? { replyTo: message.replyTo } : {}) });
      delivered(id);
    }
    return { ids };
  }

  /** Reads the file into the store and tells the client where to fetch it; the part's id. */
  async #sendFile(clientId: string, file: OutboundFile): Promise<string> {
    // Never more than the store holds, or it would push out everything and still not fit.
    const maxBytes = Math.min(this.capabilities.maxFileBytes, this.#files.maxBytes);
    const bytes = await readOutboundFile(file, { platform: 'web chat', maxBytes });
    const fileId = this.#files.add({ name: file.name, mediaType: file.mediaType, bytes });
    const id = this.#newId();
    const url = `${this.#base}/web/files/${fileId}/${encodeURIComponent(file.name)}`;
    this.#hub.publish(clientId, { type: 'file', id, name: file.name, size: bytes.byteLength, mediaType: file.mediaType, url });
    return id;
  }

  #newId(): string {
    return `${this.#idPrefix}-${this.#nextId++}`;
  }

  async edit(address: ConversationAddress, messageId: string, message: OutboundMessage): Promise<void> {
    const clientId = this.#clientOf(address);
    if (!messageIdPattern.test(messageId)) throw new DeliveryError(`web: not a message id: ${JSON.stringify(messageId)}`, { retryable: false });
    const [text = ''] = splitText(message.text, this.capabilities.maxLength);
    const { renderWebHtml } = await loadRenderer();
    this.#hub.publish(clientId, { type: 'update', id: messageId, text, html: renderWebHtml(text), ...(message.buttons ? { buttons: message.buttons } : {}) });
  }

  async typing(address: ConversationAddress): Promise<void> {
    this.#hub.publish(this.#clientOf(address), { type: 'typing' });
  }

  /** The turn ended: the page takes down the typing indicator and the Stop button at once. */
  async stopTyping(address: ConversationAddress): Promise<void> {
    this.#hub.publish(this.#clientOf(address), { type: 'typing-stop' });
  }

  async answerAction(action: ChannelAction, text?: string): Promise<void> {
    if (!text) return;
    this.#hub.publish(this.#clientOf(action.address), { type: 'notice', text, ...(action.messageId !== undefined ? { messageId: action.messageId } : {}) });
  }

  connectionCount(clientId?: string): number {
    return this.#hub.connectionCount(clientId);
  }

  bufferedCount(clientId: string): number {
    return this.#hub.bufferedCount(clientId);
  }

  routes(): ChannelRoute[] {
    const api = `${this.#base}/web`;
    return [
      { method: 'GET', path: this.#base || '/', handler: async () => this.#servePage() },
      { method: 'POST', path: `${api}/messages`, handler: (request) => this.#receiveMessage(request) },
      { method: 'POST', path: `${api}/actions`, handler: (request) => this.#receiveAction(request) },
      { method: 'POST', path: `${api}/stop`, handler: (request) => this.#receiveStop(request) },
      { method: 'GET', path: `${api}/events`, handler: async (request) => this.#openEvents(request) },
      { method: 'GET', path: `${api}/history`, handler: (request) => this.#serveHistory(request) },
      { method: 'GET', path: `${api}/files/:id/:name`, handler: async (request) => this.#serveFile(request) },
    ];
  }

  /** `GET <base>/web/files/<id>/<name>`: the name is only for the browser, the id finds the file. */
  #serveFile(request: Request): Response {
    const [id = ''] = new URL(request.url).pathname.split('/').slice(-2);
    return fileResponse(fileIdPattern.test(id) ? this.#files.get(id) : undefined, this.#files.maxBytes);
  }

  #servePage(): Response {
    this.#page ??= renderWebPage(this.#base, { login: this.#login });
    return new Response(this.#page.html, { headers: this.#page.headers });
  }

  async #receiveMessage(request: Request): Promise<Response> {
    const handlers = this.#handlers;
    if (!handlers) return notRunning();
    const parsed = await parseJsonBody(request, messageBodySchema);
    if (!parsed.ok) return parsed.response;
    const message = toInboundMessage(parsed.value, this.#now());
    // Answered once the gateway has the message on record; the turn runs on and the page hears
    // the answer over the event stream. Not taken: the page retries with the same id.
    try {
      await handlers.onMessage(message);
    } catch (error) {
      if (error instanceof NotAcceptedError) return jsonResponse(503, { error: 'The gateway cannot take messages right now; retrying.' });
      this.#log(`web: message handler failed: ${describe(error)}`);
    }
    // Other tabs of the same browser show what was sent; the sending tab already does.
    this.#hub.publish(parsed.value.clientId, { type: 'user', id: parsed.value.id, text: parsed.value.text });
    return jsonResponse(202, { accepted: true, id: parsed.value.id });
  }

  async #receiveAction(request: Request): Promise<Response> {
    const handlers = this.#handlers;
    if (!handlers) return notRunning();
    const parsed = await parseJsonBody(request, actionBodySchema);
    if (!parsed.ok) return parsed.response;
    const action = toChannelAction(parsed.value, parsed.value.id ?? randomBytes(8).toString('hex'));
    handlers.onAction(action).catch((error: unknown) => this.#log(`web: action handler failed: ${describe(error)}`));
    return jsonResponse(202, { accepted: true, id: action.id });
  }

  /**
   * `POST <base>/web/stop`: the Stop button. Handed over as the browser's own `/stop` command, so
   * the gateway runs it down the same path with the same access as the typed command: it stops
   * only the turn of this browser's conversation (`web:<clientId>`), and only one answering it.
   */
  async #receiveStop(request: Request): Promise<Response> {
    const handlers = this.#handlers;
    if (!handlers) return notRunning();
    const parsed = await parseJsonBody(request, stopBodySchema);
    if (!parsed.ok) return parsed.response;
    try {
      await handlers.onMessage(toStopCommand(parsed.value, this.#now()));
    } catch (error) {
      if (error instanceof NotAcceptedError) return jsonResponse(503, { error: 'The gateway cannot take messages right now; retrying.' });
      this.#log(`web: stop handler failed: ${describe(error)}`);
    }
    return jsonResponse(202, { accepted: true, id: parsed.value.id });
  }

  #openEvents(request: Request): Response {
    if (this.#stopped) return notRunning();
    const clientId = parseClientIdQuery(request);
    if (!clientId.ok) return clientId.response;
    return this.#hub.open(clientId.value, request.signal);
  }

  async #serveHistory(request: Request): Promise<Response> {
    const handlers = this.#handlers;
    if (!handlers) return notRunning();
    const clientId = parseClientIdQuery(request);
    if (!clientId.ok) return clientId.response;
    try {
      const messages = (await handlers.history?.(webSessionKey(clientId.value))) ?? [];
      const { renderWebHtml } = await loadRenderer();
      // The bot's messages rendered here as the live ones are; a person's are shown as typed.
      return jsonResponse(200, { messages: messages.map(({ role, text }) => (role === 'assistant' ? { role, text, html: renderWebHtml(text) } : { role, text })) });
    } catch (error) {
      this.#log(`web: history failed: ${describe(error)}`);
      return errorResponse(500, 'the history could not be loaded');
    }
  }

  #clientOf(address: ConversationAddress): string {
    if (address.platform !== webPlatform || !clientIdPattern.test(address.conversationId)) {
      throw new DeliveryError(`web: not a web chat address: ${address.platform}:${address.conversationId}`, { retryable: false });
    }
    return address.conversationId;
  }
}

function notRunning(): Response {
  return errorResponse(503, 'the web chat is not running');
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** The renderer's module, imported on first use: marked and the renderer stay out of start-up. */
let renderer: Promise<typeof RenderHtml> | undefined;

function loadRenderer(): Promise<typeof RenderHtml> {
  renderer ??= import('./format/render-html.ts');
  return renderer;
}
