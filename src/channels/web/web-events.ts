/**
 * What the web chat page receives over Server-Sent Events, and how one event looks on the wire.
 */
import type { Button } from '../types.ts';

/** A new bot message. `text` is Markdown; the page renders it. */
export interface WebMessageEvent {
  type: 'message';
  id: string;
  text: string;
  buttons?: Button[][];
  replyTo?: string;
  /** Set when the event waited in the buffer while no page was connected. */
  buffered?: boolean;
}

/** A bot message edited: its new full text (streamed replies grow this way). */
export interface WebUpdateEvent {
  type: 'update';
  id: string;
  text: string;
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

/** The bot is working on an answer. Never buffered: it means nothing later. */
export interface WebTypingEvent {
  type: 'typing';
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
export type WebEvent = WebMessageEvent | WebUpdateEvent | WebFileEvent | WebTypingEvent | WebNoticeEvent | WebUserEvent | WebReadyEvent;

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
