/**
 * The browser through the real gateway process, the fake model server and the fake Bot API: a
 * screenshot the agent asks to send arrives in the chat after the reply; `/stop` and `/new` close
 * the browser; a group member without the grant is not offered it (and sees no state), one with a
 * `browser` grant is; a stranger's message never reaches it; the browser closes with the gateway.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { whenChromiumInstalled } from '../helpers/chromium.ts';
import { startGateway, type GatewayProcess } from '../helpers/gateway-process.ts';
import { telegramChat } from '../helpers/telegram-chat.ts';
import { startTelegramGatewayFakes, type TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';
import { startPageServer, type PageServer } from '../browser/page-server.ts';
import { approveGroups, telegramGroup } from '../helpers/approved-groups.ts';

const admin = 1001;
const member = { id: 2002, first_name: 'Bea' };
const granted = { id: 3003, first_name: 'Cy' };
const group = -100555;
/**
 * How long a reply may take. A turn that opens the browser waits for chromium to start in
 * bubblewrap and load the page, which the gateway allows 30 s each; on a loaded machine that alone
 * outlasts 15 s. Waits end with the reply, so a longer limit costs nothing when things go well.
 */
const wait = 60_000;

/** The browsers whose parent is `pid`: chromium itself, or the bubblewrap it runs in. */
function chromiumOf(pid: number): number[] {
  const out = execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(pid)], { encoding: 'utf8' });
  return out
    .split('\n')
    .map((line) => line.trim().split(/\s+/))
    .filter(([, command]) => command?.includes('chrom') || command === 'bwrap')
    .map(([pid]) => Number(pid));
}

whenChromiumInstalled('browser through the gateway', 'the browser gateway tests', () => {
  describe('browser through the gateway', { timeout: 2 * wait }, () => {
    let fakes: TelegramGatewayFakes;
    let pages: PageServer;
    let gateway: GatewayProcess;
    let chat: ReturnType<typeof telegramChat>;
    let model: TelegramGatewayFakes['model'];
    let telegram: TelegramGatewayFakes['telegram'];

    beforeAll(async () => {
      pages = await startPageServer();
      fakes = await startTelegramGatewayFakes('operator-browser-e2e-');
      ({ model, telegram } = fakes);
      // The test pages are on 127.0.0.1: the private network is allowed here, and only here.
      writeFileSync(
        join(fakes.home, 'operator.json'),
        JSON.stringify({ allowPrivateNetwork: true, groups: { [`telegram:${group}`]: { requireMention: false } }, tools: { grants: [{ tools: ['browser'], people: [`telegram:${granted.id}`] }] } }),
      );
      // The group(s) an admin approved (groupPolicy approval is the default; this test is about something else).
      await approveGroups(fakes.home, [telegramGroup(group)]);
      gateway = await startGateway({ home: fakes.home, env: fakes.env([admin]) }, wait);
      chat = telegramChat({ fakes, gateway, admin, group, waitMs: wait });
    });

    afterAll(async () => {
      await gateway?.stop();
      await fakes?.close();
      await pages?.close();
    });


    it('sends a screenshot the agent asks for after its reply, as an image', async () => {
      const before = telegram.messages(admin).length;
      model.enqueue(
        { toolCalls: [{ name: 'browser', arguments: { action: 'navigate', url: `${pages.url}/` } }] },
        { toolCalls: [{ name: 'browser', arguments: { action: 'screenshot', send: true } }] },
        { text: 'Here is the status page.' },
      );
      chat.dm('show me the status page');
      const [text, image] = await chat.messagesAfter(admin, before, 2);
      expect(text).toMatchObject({ kind: 'text', text: 'Here is the status page.' });
      expect(['photo', 'document']).toContain(image!.kind);
      const bytes = Buffer.from(image!.file!.bytes);
      expect(bytes.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
      const last = chat.lastRequest();
      expect(last).toContain('will be sent after your reply');
      expect(last).toContain('<browser_state');
      expect(chromiumOf(gateway.child.pid!).length).toBeGreaterThan(0);
    });

    it('/stop closes the browser when nothing runs; the next turn has no browser state', async () => {
      const before = telegram.messages(admin).length;
      chat.dm('/stop');
      const [reply] = await chat.messagesAfter(admin, before, 1);
      expect(reply!.text).toBe('Nothing is running; closed the browser.');
      model.enqueue({ text: 'No browser now.' });
      chat.dm('anything open?');
      await chat.messagesAfter(admin, before + 1, 1);
      expect(chat.lastRequest()).not.toContain('<browser_state');
    });

    it('/new closes the browser too', async () => {
      model.enqueue({ toolCalls: [{ name: 'browser', arguments: { action: 'navigate', url: `${pages.url}/form` } }] }, { text: 'Opened.' });
      const before = telegram.messages(admin).length;
      chat.dm('open the form');
      await chat.messagesAfter(admin, before, 1);
      chat.dm('/new');
      await chat.messagesAfter(admin, before + 1, 1);
      model.enqueue({ text: 'Fresh.' });
      chat.dm('hello');
      await chat.messagesAfter(admin, before + 2, 1);
      expect(chat.lastRequest()).not.toContain('<browser_state');
    });

    it('a group member without the grant is not offered the browser; one with a browser grant is', async () => {
      model.enqueue({ text: 'Hi Bea.' });
      const before = telegram.messages(group).length;
      chat.inGroup('hello bot', member);
      await chat.messagesAfter(group, before, 1);
      expect(chat.lastToolNames()).not.toContain('browser');
      expect(chat.lastToolNames()).not.toContain('web_fetch');
      model.enqueue({ toolCalls: [{ name: 'browser', arguments: { action: 'navigate', url: `${pages.url}/` } }] }, { text: 'Opened for Cy.' });
      chat.inGroup('open the status page', granted);
      await chat.messagesAfter(group, before + 1, 1);
      expect(chat.lastToolNames()).toEqual(expect.arrayContaining(['browser', 'web_fetch']));
      expect(chat.lastRequest()).toContain('<browser_state');
      // The member's next turn in the same group sees none of the page Cy opened.
      model.enqueue({ text: 'Nothing to show you.' });
      chat.inGroup('what is on the page?', member);
      await chat.messagesAfter(group, before + 2, 1);
      expect(chat.lastRequest()).not.toContain('<browser_state');
      expect(chat.lastToolNames()).not.toContain('browser');
    });

    it('a stranger in a direct message never reaches the model, let alone the browser', async () => {
      const requests = model.requests.length;
      const stranger = 4004;
      const before = telegram.messages(stranger).length;
      telegram.pushUpdate(telegram.textMessage({ chatId: stranger, text: 'open http://127.0.0.1/', from: { id: stranger, first_name: 'Eve' } }));
      const [reply] = await chat.messagesAfter(stranger, before, 1);
      expect(reply!.text).toMatch(/pair|code/i);
      expect(model.requests.length).toBe(requests);
    });

    it('closes the browser at shutdown', async () => {
      const pid = gateway.child.pid!;
      expect(chromiumOf(pid).length).toBeGreaterThan(0);
      const children = chromiumOf(pid);
      expect(await gateway.stop()).toBe(0);
      for (const child of children) expect(() => process.kill(child, 0)).toThrow();
    });
  });
});
