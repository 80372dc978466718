/**
 * What the web chat page receives over Server-Sent Events, and how one event looks on the wire.
 */
import type { Button } from '../types.ts';
import type { WebApprovalCard } from './approval-card.ts';

/**
 * A new bot message. `text` is the Markdown; `html` is it rendered by the server (safe: every
 * piece of text escaped, see `renderWebHtml`), which the page shows.
 */
export interface WebMessageEvent {
  type: 'message';
  id: string;
  text: string;
  html: string;
  buttons?: Button[][];
  replyTo?: string;
  /** The message asks to approve this tool call: the page shows it as a card above the buttons. */
  approval?: WebApprovalCard;
  /** Set when the event waited in the buffer while no page was connected. */
  buffered?: boolean;
}

/** A bot message edited: its new full text (streamed replies grow this way). */
export interface WebUpdateEvent {
  type: 'update';
  id: string;
  text: string;
  html: string;
  buttons?: Button[][];
  buffered?: boolean;
}

/**
 * A file the bot sent, one part of a message: `url` (under the chat's base path) downloads it
 * while the adapter still keeps it in memory.
 */
export interface WebFileEvent {
  type: 'file';
  id: string;
  name: string;
  /** Size in bytes. */
  size: number;
  mediaType: string;
  url: string;
  buffered?: boolean;
}

/**
 * The bot is working on an answer (renewed every few seconds while it does): the page shows the
 * typing indicator and the Stop button. Never buffered: it means nothing later.
 */
export interface WebTypingEvent {
  type: 'typing';
}

/** The bot's turn ended (answered, stopped or failed): indicator and Stop button go. Never buffered. */
export interface WebTypingStopEvent {
  type: 'typing-stop';
}

/** A short notice about a button press (`answerAction`). */
export interface WebNoticeEvent {
  type: 'notice';
  text: string;
  messageId?: string;
  buffered?: boolean;
}

/** A message the person sent from another tab with the same client id. Never buffered. */
export interface WebUserEvent {
  type: 'user';
  id: string;
  text: string;
}

/** The stream is open and registered; buffered events follow. */
export interface WebReadyEvent {
  type: 'ready';
}

/** Every event the page handles. */
export type WebEvent = WebMessageEvent | WebUpdateEvent | WebFileEvent | WebTypingEvent | WebTypingStopEvent | WebNoticeEvent | WebUserEvent | WebReadyEvent;

/** Events kept for a client while none of its pages is connected. */
export type BufferableEvent = WebMessageEvent | WebUpdateEvent | WebFileEvent | WebNoticeEvent;

/**
 * One event in the SSE wire format: `event: <type>` and one `data:` line of JSON (JSON never
 * contains a raw newline, so one line always suffices), then a blank line.
 */
export function formatEvent(event: WebEvent): string {
  const { type, ...data } = event;
  return `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** An SSE comment line: ignored by `EventSource`, keeps proxies and idle timers from closing. */
export const heartbeatComment = ': heartbeat\n\n';
