/**
 * Files out, end to end: the real gateway process, the fake model server issuing `send_file`
 * calls and the fake Bot API server. A file arrives after its reply; one outside the workspace is
 * refused; a failed upload is sent again without the text; a `[SILENT]` reply still sends its
 * file; after a crash during an upload, the restart sends only the file.
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import type { FakeTelegram } from '../fakes/fake-telegram-server.ts';
import { startGateway } from '../helpers/gateway-process.ts';
import type { GatewayProcess } from '../helpers/gateway-process.ts';
import { startTelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';
import type { TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

const chat = 1001;
const wait = 8_000;

describe('files sent by the agent through Telegram', () => {
  let fakes: TelegramGatewayFakes;
  let model: FakeModelServer;
  let telegram: FakeTelegram;
  let gateway: GatewayProcess;
  /** A folder inside the workspace (the profile's own folder). */
  let folder: string;

  const start = () => startGateway({ home: fakes.home, env: fakes.env([chat]) }, wait);

  beforeAll(async () => {
    fakes = await startTelegramGatewayFakes('operator-telegram-e2e-files-');
    ({ model, telegram } = fakes);
    folder = join(fakes.home, 'profiles', 'default', 'temp', 'out');
    mkdirSync(folder, { recursive: true });
    gateway = await start();
  });

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  const say = (text: string) => telegram.pushUpdate(telegram.textMessage({ chatId: chat, text, from: { id: chat, first_name: 'Ada' } }));
  const since = (count: number) => telegram.messages(chat).slice(count);
  const waitForMessages = (count: number, total: number) =>
    telegram.waitFor((fake) => fake.messages(chat).length >= count + total && fake.messages(chat).slice(count), wait).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${gateway.output.all()}`);
    });
  const write = (name: string, content: string) => {
    writeFileSync(join(folder, name), content);
    return join(folder, name);
  };
  const sendFile = (path: string, text: string) => model.enqueue({ toolCalls: [{ name: 'send_file', arguments: { path } }] }, { text });
  const outbox = () => readdirSync(join(fakes.home, 'outbox'));
  /** Waits until the outbox is empty (its copies are removed after delivery, with no call to the fake). */
  const outboxEmptied = async () => {
    for (const deadline = Date.now() + wait; outbox().length > 0; ) {
      if (Date.now() > deadline) throw new Error(`outbox still holds ${outbox().join(', ')}\n${gateway.output.all()}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  it('sends the file after the reply, once, and removes its outbox copy', async () => {
    const before = telegram.messages(chat).length;
    sendFile(write('report.csv', 'region,total\nnorth,12\n'), 'Here is the report.');
    say('send me the report');
    const [text, document] = await waitForMessages(before, 2);
    expect(text).toMatchObject({ kind: 'text', text: 'Here is the report.' });
    expect(document).toMatchObject({ kind: 'document' });
    expect(document!.file!.name).toBe('report.csv');
    expect(Buffer.from(document!.file!.bytes).toString()).toBe('region,total\nnorth,12\n');
    expect(JSON.stringify(model.requests.at(-1)!.body.messages.at(-1))).toContain('report.csv (22 bytes, text/csv) will be sent after your reply.');
    await outboxEmptied();
    expect(since(before)).toHaveLength(2);
  });

  it('refuses a file outside the workspace, and the model hears why', async () => {
    const before = telegram.messages(chat).length;
    sendFile('/etc/hostname', 'I could not send it.');
    say('send me /etc/hostname');
    await waitForMessages(before, 1);
    expect(JSON.stringify(model.requests.at(-1)!.body.messages.at(-1))).toMatch(/outside the workspace/);
    expect(since(before).map((message) => message.kind)).toEqual(['text']);
  });

  it('sends a failed upload again without repeating the text', async () => {
    const before = telegram.messages(chat).length;
    telegram.failNext('sendDocument', { status: 500, description: 'Internal Server Error' });
    sendFile(write('retry.txt', 'second time lucky'), 'Retrying file.');
    say('send the retry file');
    const sent = await waitForMessages(before, 2);
    expect(sent.map((message) => [message.kind, message.kind === 'text' ? message.text : message.file!.name])).toEqual([
      ['text', 'Retrying file.'],
      ['document', 'retry.txt'],
    ]);
    expect(telegram.callsOf('sendDocument').slice(-2).map((call) => call.status)).toEqual([500, 200]);
  });

  it('sends the files of a [SILENT] reply alone', async () => {
    const before = telegram.messages(chat).length;
    sendFile(write('quiet.txt', 'no words needed'), '[SILENT]');
    say('just the file please');
    const [document] = await waitForMessages(before, 1);
    expect(document).toMatchObject({ kind: 'document', file: { name: 'quiet.txt' } });
    model.enqueue({ text: 'Done.' });
    say('anything else?');
    await waitForMessages(before, 2);
    expect(since(before).map((message) => message.kind)).toEqual(['document', 'text']);
  });

  it('after a crash during the upload, the restart sends only the file', async () => {
    const before = telegram.messages(chat).length;
    const requests = model.requests.length;
    telegram.holdNext('sendDocument');
    sendFile(write('crash.txt', 'survives a crash'), 'File after a crash.');
    say('send it even if you crash');
    await telegram.waitFor((fake) => fake.calls.find((call) => call.held && call.method === 'sendDocument'), wait);
    await gateway.kill();
    expect(outbox()).toHaveLength(1);

    gateway = await start();
    const sent = await waitForMessages(before, 2);
    expect(sent.map((message) => [message.kind, message.kind === 'text' ? message.text : message.file!.name])).toEqual([
      ['text', 'File after a crash.'],
      ['document', 'crash.txt'],
    ]);
    await outboxEmptied();
    // Delivered from the ledger, not answered again.
    expect(model.requests).toHaveLength(requests + 2);
  });
});
