/**
 * A web chat channel served by hono on @hono/node-server at 127.0.0.1 (a free port), mounted the
 * way the gateway mounts adapter routes, with test handlers standing in for the gateway:
 * - an echo handler that answers each new message (dedupe key seen before: nothing) with
 *   typing, a first message `…`, two growing edits and finally `echo: <text>`; pausing before
 *   each step on `pace` so a test can watch the reply grow;
 * - the text `buttons` is answered with a message carrying Yes / No buttons;
 * - every button press is recorded and answered with the notice `pressed <data>`;
 * - `history` returns what was said in the conversation.
 * Also a Server-Sent Events client ({@link openSse}) that records what a stream carried.
 */
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { vi } from 'vitest';
import { createWebChannel } from '../../src/channels/web/index.ts';
import type { WebChannel, WebChannelOptions } from '../../src/channels/web/index.ts';
import { NotAcceptedError, type ChannelAction, type ChannelHandlers, type InboundMessage } from '../../src/channels/types.ts';

/** A running web chat with recording handlers. */
export interface WebHarness {
  /** `http://127.0.0.1:<port>` (no trailing slash). */
  origin: string;
  channel: WebChannel;
  /** Every message the channel handed over, duplicates included. */
  messages: InboundMessage[];
  /** Every button press the channel handed over. */
  actions: ChannelAction[];
  /** What was said, per session key (what `history` returns). */
  transcripts: Map<string, { role: 'user' | 'assistant'; text: string }[]>;
  /** Resolves when every echo started so far has finished. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

/** Options of {@link startWebHarness}. */
export interface WebHarnessOptions {
  channel?: WebChannelOptions;
  /** Awaited before each step of an echo (default: a macrotask). */
  pace?: () => Promise<void>;
  /** Leave out `history` (a gateway without one). */
  withoutHistory?: boolean;
  /** Do not call `start` (to test a channel that is not running). */
  notStarted?: boolean;
  /** The first this many messages are not taken (`NotAcceptedError`), as by a gateway whose store failed. */
  refuse?: number;
}

/** A hand-operated `pace`: each `advance()` lets one waiting step go; `release()` lets all go. */
export interface Stepper {
  pace(): Promise<void>;
  advance(): void;
  release(): void;
  /** Steps waiting for `advance`. */
  readonly waiting: number;
}

/** Makes a {@link Stepper}. */
export function createStepper(): Stepper {
  const waiting: (() => void)[] = [];
  let released = false;
  return {
    pace: () => (released ? Promise.resolve() : new Promise<void>((resolve) => waiting.push(resolve))),
    advance: () => waiting.shift()?.(),
    release: () => {
      released = true;
      for (const resolve of waiting.splice(0)) resolve();
    },
    get waiting() {
      return waiting.length;
    },
  };
}

/** Starts the web chat with the echo handlers. */
export async function startWebHarness(options: WebHarnessOptions = {}): Promise<WebHarness> {
  const channel = createWebChannel({ log: () => undefined, ...options.channel });
  const pace = options.pace ?? (() => new Promise<void>((resolve) => setTimeout(resolve, 0)));
  const messages: InboundMessage[] = [];
  const actions: ChannelAction[] = [];
  const transcripts = new Map<string, { role: 'user' | 'assistant'; text: string }[]>();
  const seen = new Set<string>();
  let refusals = options.refuse ?? 0;
  const running = new Set<Promise<void>>();

  const say = (sessionKey: string, role: 'user' | 'assistant', text: string) => {
    const transcript = transcripts.get(sessionKey) ?? [];
    transcript.push({ role, text });
    transcripts.set(sessionKey, transcript);
  };

  const echo = async (message: InboundMessage) => {
    say(message.sessionKey, 'user', message.text);
    if (message.text === 'buttons') {
      await channel.send(message.address, { text: 'Pick one:', buttons: [[{ label: 'Yes', data: 'yes' }, { label: 'No', data: 'no' }]] });
      say(message.sessionKey, 'assistant', 'Pick one:');
      return;
    }
    const final = `echo: ${message.text}`;
    await channel.typing(message.address);
    await pace();
    const { ids } = await channel.send(message.address, { text: '…' });
    const id = ids[0] ?? '';
    await pace();
    await channel.edit(message.address, id, { text: `${final.slice(0, Math.ceil(final.length / 2))} …` });
    await pace();
    await channel.edit(message.address, id, { text: `${final} …` });
    await pace();
    await channel.edit(message.address, id, { text: final });
    say(message.sessionKey, 'assistant', final);
  };

  const handlers: ChannelHandlers = {
    // As the gateway does: resolves once the message is taken, the answer runs on.
    onMessage: async (message) => {
      messages.push(message);
      if (refusals > 0) {
        refusals--;
        throw new NotAcceptedError('not taken in this test');
      }
      if (seen.has(message.dedupeKey)) return;
      seen.add(message.dedupeKey);
      const turn = echo(message).finally(() => running.delete(turn));
      running.add(turn);
    },
    onAction: async (action) => {
      actions.push(action);
      await channel.answerAction?.(action, `pressed ${action.data}`);
    },
    ...(options.withoutHistory ? {} : { history: async (sessionKey: string) => [...(transcripts.get(sessionKey) ?? [])] }),
  };

  const app = new Hono();
  for (const route of channel.routes()) app.on(route.method, route.path, (context) => route.handler(context.req.raw));
  if (!options.notStarted) await channel.start(handlers);

  const { server, port } = await new Promise<{ server: ReturnType<typeof serve>; port: number }>((resolve) => {
    const started = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => resolve({ server: started, port: info.port }));
  });

  return {
    origin: `http://127.0.0.1:${port}`,
    channel,
    messages,
    actions,
    transcripts,
    idle: async () => {
      while (running.size > 0) await Promise.allSettled([...running]);
    },
    close: async () => {
      await channel.stop();
      const closable = server as unknown as { closeAllConnections?: () => void; close(callback: (error?: Error) => void): void };
      closable.closeAllConnections?.();
      await new Promise<void>((resolve) => closable.close(() => resolve()));
    },
  };
}

/** One parsed SSE block. */
export interface SseEvent {
  type: string;
  data: Record<string, unknown>;
}

/** An open event stream. */
export interface SseStream {
  status: number;
  headers: Headers;
  events: SseEvent[];
  /** Comment lines (without the leading `:`). */
  comments: string[];
  /** Everything received, as text. */
  text(): string;
  /** True once the server ended the stream. */
  readonly ended: boolean;
  /** Waits for an event matching `predicate` (index in `events` at or after `from`). */
  next(predicate: (event: SseEvent) => boolean, from?: number): Promise<SseEvent>;
  close(): void;
}

/** Opens `url` as an event stream; `headers` are sent too (a session cookie). */
export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseStream> {
  const controller = new AbortController();
  const response = await fetch(url, { signal: controller.signal, headers: { accept: 'text/event-stream', ...headers } });
  const events: SseEvent[] = [];
  const comments: string[] = [];
  let all = '';
  let pending = '';
  let ended = false;
  const parse = (block: string) => {
    let type = 'message';
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) comments.push(line.slice(1).trim());
      else if (line.startsWith('event:')) type = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
    }
    if (data.length > 0) events.push({ type, data: JSON.parse(data.join('\n')) as Record<string, unknown> });
  };
  if (response.body) {
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    void (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          const chunk = decoder.decode(value, { stream: true });
          all += chunk;
          pending += chunk;
          let end: number;
          while ((end = pending.indexOf('\n\n')) !== -1) {
            parse(pending.slice(0, end));
            pending = pending.slice(end + 2);
          }
        }
      } catch {
        // Aborted by close().
      } finally {
        ended = true;
      }
    })();
  } else {
    ended = true;
  }
  return {
    status: response.status,
    headers: response.headers,
    events,
    comments,
    text: () => all,
    get ended() {
      return ended;
    },
    next: (predicate, from = 0) =>
      vi.waitFor(
        () => {
          const found = events.slice(from).find(predicate);
          if (!found) throw new Error(`no matching event yet; got ${JSON.stringify(events.map((event) => event.type))}`);
          return found;
        },
        { timeout: 10_000, interval: 5 },
      ),
    close: () => controller.abort(),
  };
}
