/**
 * The child side of `lean-telegram-process.ts`: fake Telegram Bot API servers
 * (`test/fakes/fake-telegram-server.ts`) in one process of their own, one server per bot process
 * the lean benchmark starts, so each starts against a fresh queue with nothing left over from
 * the one before, without paying for a new child each time.
 *
 * It tells the parent, stamped with `process.hrtime.bigint()` (CLOCK_MONOTONIC, the same clock in
 * every process of the machine) at the moment the fake recorded it: each bot message whose text
 * is the expected reply, each getUpdates call arriving, and each getUpdates answer handed to its
 * connection with its status. Events go out batched once per turn of the event loop.
 */
import { startFakeTelegramServer, type FakeTelegram, type FakeTelegramCall } from '../test/fakes/fake-telegram-server.ts';

/** What the parent sends the child. */
export type LeanParentMessage =
  | { type: 'open'; id: number }
  | { type: 'push'; id: number; server: number; chats: number[]; text: string }
  | { type: 'close'; id: number; server: number };

/** Something a fake server saw, with `at` = `process.hrtime.bigint()` as a string. */
export type LeanEvent =
  | { server: number; kind: 'reply'; chat: number; at: string }
  | { server: number; kind: 'poll'; at: string }
  | { server: number; kind: 'polled'; status: number; at: string };

/** What the child sends the parent. */
export type LeanChildMessage =
  | { type: 'ready' }
  | { type: 'opened'; id: number; server: number; apiRoot: string; token: string }
  | { type: 'pushed'; id: number; at: string }
  | { type: 'closed'; id: number }
  | { type: 'events'; items: LeanEvent[] };

const replyText = process.argv[2] ?? 'ok';
const send = (message: LeanChildMessage) => process.send!(message);
const servers = new Map<number, FakeTelegram>();
let nextServer = 0;

let batch: LeanEvent[] = [];
let flushing = false;
function report(event: LeanEvent): void {
  batch.push(event);
  if (flushing) return;
  flushing = true;
  setImmediate(() => {
    flushing = false;
    send({ type: 'events', items: batch });
    batch = [];
  });
}

/** Watches one server: runs on every change it records, reading only calls not seen yet. */
function watch(server: number, telegram: FakeTelegram): void {
  let cursor = 0;
  const polls = new Set<FakeTelegramCall>();
  // A predicate never satisfied: the fake runs it synchronously on every change it records.
  telegram.waitFor(() => {
    const now = process.hrtime.bigint().toString();
    const calls = telegram.calls;
    for (; cursor < calls.length; cursor++) {
      const call = calls[cursor]!;
      if (call.method === 'getUpdates') {
        polls.add(call);
        report({ server, kind: 'poll', at: now });
      } else if (call.method === 'sendMessage' && call.params.text === replyText) {
        report({ server, kind: 'reply', chat: Number(call.params.chat_id), at: now });
      }
    }
    for (const call of polls) {
      if (!call.answered) continue;
      polls.delete(call);
      report({ server, kind: 'polled', status: call.status, at: now });
    }
    return false;
  }, 2 ** 31 - 1).catch(() => undefined);
}

process.on('message', (message: LeanParentMessage) => {
  switch (message.type) {
    case 'open':
      void startFakeTelegramServer().then((telegram) => {
        const server = nextServer++;
        servers.set(server, telegram);
        watch(server, telegram);
        send({ type: 'opened', id: message.id, server, apiRoot: telegram.apiRoot, token: telegram.token });
      });
      break;
    case 'push': {
      const telegram = servers.get(message.server)!;
      // All queued in one go: a held long poll wakes once, after this loop, and takes up to 100.
      for (const chat of message.chats) telegram.pushUpdate(telegram.textMessage({ chatId: chat, text: message.text }));
      send({ type: 'pushed', id: message.id, at: process.hrtime.bigint().toString() });
      break;
    }
    case 'close': {
      const telegram = servers.get(message.server);
      servers.delete(message.server);
      void (telegram?.close() ?? Promise.resolve()).then(() => send({ type: 'closed', id: message.id }));
      break;
    }
  }
});
process.on('disconnect', () => {
  void Promise.all([...servers.values()].map((telegram) => telegram.close())).finally(() => process.exit(0));
});
send({ type: 'ready' });
