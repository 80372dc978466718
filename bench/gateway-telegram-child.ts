/**
 * The child side of `gateway-telegram-process.ts`: the fake Telegram Bot API server in its own
 * process, so serving the gateway's calls neither competes with the benchmark's event loop nor
 * delays its clock readings. Every bot message with the expected reply text is reported to the
 * parent over IPC with the moment it arrived (`process.hrtime.bigint()`, CLOCK_MONOTONIC, the same
 * clock in every process of the machine), batched per turn of the event loop.
 */
import { startFakeTelegramServer } from '../test/fakes/fake-telegram-server.ts';
import type { ParentMessage } from './gateway-telegram-process.ts';
import { replyBatcher } from './reply-batch.ts';

const replyText = process.argv[2] ?? 'ok';
const telegram = await startFakeTelegramServer();
const send = (message: unknown) => process.send!(message);

let cursor = 0;
const report = replyBatcher<number>(send);
// A predicate that is never satisfied: it runs on every change the fake records, right after the
// call arrived, and reads only the calls it has not seen yet.
void telegram.waitFor(() => {
  const calls = telegram.calls;
  const found: number[] = [];
  for (; cursor < calls.length; cursor++) {
    const call = calls[cursor]!;
    if ((call.method === 'sendMessage' || call.method === 'editMessageText') && call.params.text === replyText) found.push(Number(call.params.chat_id));
  }
  report(found);
  return false;
}, 2 ** 31 - 1);

process.on('message', (message: ParentMessage) => {
  if (message.type === 'verify') {
    // A chat is answered when the bot's last message in it is the whole reply.
    const missing = message.chats.filter((chat) => telegram.messages(chat).at(-1)?.text !== replyText);
    send({ type: 'verified', id: message.id, missing: missing.length, calls: telegram.calls.length });
  }
});
process.on('disconnect', () => {
  void telegram.close().finally(() => process.exit(0));
});
send({ type: 'ready', apiRoot: telegram.apiRoot, token: telegram.token });
