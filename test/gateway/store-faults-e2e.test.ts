/**
 * The store fails under the real gateway process: OPERATOR_HOME on a small disk of its own that
 * fills up (a real ENOSPC from the kernel). While it is full, messages are refused (Telegram keeps
 * them: the poll offset does not move), `/healthz` and `/readyz` say the store fails, and a turn
 * the disk fails under is neither told as failed nor forgotten. Once there is room again, without
 * a restart, every message is answered exactly once.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FakeModelServer, RecordedRequest } from '../fakes/fake-model-server.ts';
import type { FakeTelegram } from '../fakes/fake-telegram-server.ts';
import { startGateway, type StartedGateway } from '../helpers/gateway-process.ts';
import { mountSmallDisk, type SmallDisk } from '../helpers/small-disk.ts';
import { startTelegramGatewayFakes, type TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

const wait = 30_000;

/** The last user text of a model request. */
function lastUserText(request: RecordedRequest): string {
  const users = (request.body.messages as { role: string; content: string | { type: string; text?: string }[] }[]).filter((message) => message.role === 'user');
  const content = users.at(-1)!.content;
  return typeof content === 'string' ? content : content.map((part) => part.text ?? '').join('');
}

describe('a full disk under the gateway', () => {
  let disk: SmallDisk;
  let fakes: TelegramGatewayFakes;
  let model: FakeModelServer;
  let telegram: FakeTelegram;
  let gateway: StartedGateway;

  beforeEach(async () => {
    disk = await mountSmallDisk({ sizeBytes: 16 * 1024 * 1024 });
    fakes = await startTelegramGatewayFakes('operator-store-faults-');
    ({ model, telegram } = fakes);
    // Each answer names the message it answers, so answers can be counted per message.
    model.setDefault((request) => ({ text: `Answer to ${lastUserText(request).slice(0, 12)}` }));
    gateway = await startGateway({ home: disk.home, env: { ...fakes.env([]), OPERATOR_DM_POLICY: 'open' } }, wait);
  });

  afterEach(async () => {
    await gateway?.stop();
    await fakes?.close();
    await disk?.remove();
  });

  const health = async (path: string) => {
    const response = await fetch(`${gateway.origin}${path}`);
    return { status: response.status, body: (await response.json()) as { status: string; store?: { state: string } } };
  };
  /** A message long enough that recording it needs new space on the disk (the tail of a page would not do). */
  const say = (chat: number, tag: string) => telegram.pushUpdate(telegram.textMessage({ chatId: chat, text: `${tag} ${'x'.repeat(6_000)}`, from: { id: chat, first_name: 'Eve' } }));
  const answers = (chat: number, tag: string) => telegram.messages(chat).filter((message) => message.text.startsWith(`Answer to ${tag}`));
  const noApology = (chat: number) => telegram.messages(chat).every((message) => !message.text.includes('went wrong'));

  it('refuses messages while the disk is full, reports it, and answers each once when there is room again', async () => {
    say(5001, 'm-before');
    await telegram.waitFor(() => (answers(5001, 'm-before').length > 0 ? true : undefined), wait);

    await disk.fill();
    const chats = [5002, 5003, 5004];
    chats.forEach((chat, index) => say(chat, `m-full-${index}`));
    await telegram.waitFor(async () => ((await health('/healthz')).body.status === 'store-failing' ? true : undefined), wait);
    const readiness = await health('/readyz');
    expect(readiness.status).toBe(503);
    expect(readiness.body.store?.state).toBe('failing');
    expect(gateway.output.all()).toContain('ENOSPC');

    await disk.free();
    for (const [index, chat] of chats.entries()) {
      await telegram.waitFor(() => (answers(chat, `m-full-${index}`).length > 0 ? true : undefined), wait);
    }
    await telegram.waitFor(async () => ((await health('/healthz')).status === 200 ? true : undefined), wait);
    // Once each, and nobody was told that something went wrong.
    for (const [index, chat] of chats.entries()) {
      expect(answers(chat, `m-full-${index}`)).toHaveLength(1);
      expect(noApology(chat)).toBe(true);
    }
    expect(answers(5001, 'm-before')).toHaveLength(1);
  });

  it('keeps a message whose turn the full disk cut short, and answers it once when there is room again', async () => {
    const chat = 5101;
    // A long answer, streamed slowly: the disk fills while it streams, and recording it needs room.
    model.enqueue({ text: `Answer to m-mid-turn ${'y'.repeat(40_000)}`, chunkSize: 2_000, delayMs: 150 });
    say(chat, 'm-mid-turn');
    await telegram.waitFor(() => (model.requests.length > 0 ? true : undefined), wait);
    await disk.fill();
    await telegram.waitFor(() => (gateway.output.all().includes('"event":"store.failed"') ? true : undefined), wait);
    // At most the preview of the answer shows; nothing final was sent.
    expect(answers(chat, 'm-mid-turn').every((message) => message.text.endsWith('…'))).toBe(true);

    await disk.free();
    await telegram.waitFor(() => (answers(chat, 'm-mid-turn').some((message) => !message.text.endsWith('…')) ? true : undefined), wait);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    // One message: the preview the cut-short turn left became the answer.
    expect(answers(chat, 'm-mid-turn')).toHaveLength(1);
    expect(noApology(chat)).toBe(true);
  });
});
