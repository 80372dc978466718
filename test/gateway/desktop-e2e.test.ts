/**
 * The desktop through the real gateway process, the fake model server and the fake Bot API, on
 * Xvfb: the start-up output names the display; the owner's screenshot arrives in the chat; a
 * grant of "all" does not include the desktop, a grant naming it does; a member without it is
 * not offered it and sees no state; a stranger never reaches the model; `/stop` ends the state.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { whenDesktopInstalled } from '../desktop/needs-desktop.ts';
import { startDisplay, type TestDisplay } from '../desktop/x-display.ts';
import { startGateway, type GatewayProcess } from '../helpers/gateway-process.ts';
import { telegramChat } from '../helpers/telegram-chat.ts';
import { startTelegramGatewayFakes, type TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';
import { approveGroups, telegramGroup } from '../helpers/approved-groups.ts';

const admin = 1001;
const member = { id: 2002, first_name: 'Bea' };
const everything = { id: 3003, first_name: 'Cy' };
const desk = { id: 5005, first_name: 'Dee' };
const group = -100777;
const wait = 15_000;

whenDesktopInstalled('desktop through the gateway', 'the desktop gateway tests', () => {
  describe('desktop through the gateway', () => {
    let x: TestDisplay;
    let fakes: TelegramGatewayFakes;
    let gateway: GatewayProcess;
    let chat: ReturnType<typeof telegramChat>;
    let model: TelegramGatewayFakes['model'];
    let telegram: TelegramGatewayFakes['telegram'];

    beforeAll(async () => {
      x = await startDisplay(1024, 768);
      await x.openMessage('notes');
      fakes = await startTelegramGatewayFakes('operator-desktop-e2e-');
      ({ model, telegram } = fakes);
      writeFileSync(
        join(fakes.home, 'operator.json'),
        JSON.stringify({
          desktop: { enabled: true, display: x.display.name },
          groups: { [`telegram:${group}`]: { requireMention: false } },
          // Several people talk in the group, which taints its turns; this file is about the
          // desktop's grants (taint-e2e.test.ts shows what a tainted turn asks).
          taint: { mode: 'off' },
          tools: {
            grants: [
              { tools: 'all', people: [`telegram:${everything.id}`] },
              { tools: ['desktop'], people: [`telegram:${desk.id}`] },
            ],
          },
        }),
      );
      // The group(s) an admin approved (groupPolicy approval is the default; this test is about something else).
      await approveGroups(fakes.home, [telegramGroup(group)]);
      gateway = await startGateway({ home: fakes.home, env: fakes.env([admin]) }, wait);
      chat = telegramChat({ fakes, gateway, admin, group, waitMs: wait });
    }, 60_000);

    afterAll(async () => {
      await gateway?.stop();
      await fakes?.close();
      await x?.close();
    });


    it('names the display at start-up', () => {
      expect(gateway.output.all()).toContain(`desktop: display ${x.display.name}, with a screenshot on each call while in use`);
    });

    it("sends the owner's screenshot to the chat after the reply; later calls carry the desktop's state", async () => {
      const before = telegram.messages(admin).length;
      model.enqueue({ toolCalls: [{ name: 'desktop', arguments: { action: 'screenshot', send: true } }] }, { text: 'Here is the screen.' });
      chat.dm('show me the screen');
      const [text, image] = await chat.messagesAfter(admin, before, 2);
      expect(text).toMatchObject({ kind: 'text', text: 'Here is the screen.' });
      expect(['photo', 'document']).toContain(image!.kind);
      expect(Buffer.from(image!.file!.bytes).subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
      expect(chat.lastRequest()).toContain('will be sent after your reply');
      expect(chat.lastRequest()).toContain('<desktop_state');
      expect(chat.lastRequest()).toContain('\\"notes\\"');
    });

    it('/stop ends the state riding along', async () => {
      const before = telegram.messages(admin).length;
      chat.dm('/stop');
      const [reply] = await chat.messagesAfter(admin, before, 1);
      expect(reply!.text).toBe('Nothing is running.');
      model.enqueue({ text: 'Not looking.' });
      chat.dm('still looking?');
      await chat.messagesAfter(admin, before + 1, 1);
      expect(chat.lastRequest()).not.toContain('<desktop_state');
      expect(chat.lastToolNames()).toContain('desktop');
    });

    it('a member without a grant, and one granted "all", are not offered the desktop; a grant naming it is', async () => {
      const before = telegram.messages(group).length;
      model.enqueue({ text: 'Hi Bea.' });
      chat.inGroup('hello bot', member);
      await chat.messagesAfter(group, before, 1);
      expect(chat.lastToolNames()).not.toContain('desktop');
      model.enqueue({ text: 'Hi Cy.' });
      chat.inGroup('hello from Cy', everything);
      await chat.messagesAfter(group, before + 1, 1);
      expect(chat.lastToolNames()).toEqual(expect.arrayContaining(['read_file', 'browser']));
      expect(chat.lastToolNames()).not.toContain('desktop');
      model.enqueue({ toolCalls: [{ name: 'desktop', arguments: { action: 'windows' } }] }, { text: 'I see the notes box.' });
      chat.inGroup('what windows are open?', desk);
      await chat.messagesAfter(group, before + 2, 1);
      expect(chat.lastToolNames()).toContain('desktop');
      expect(chat.lastRequest()).toContain('<desktop_state');
      // Bea's next turn in the same group sees none of it.
      model.enqueue({ text: 'Nothing to show you.' });
      chat.inGroup('what is on the screen?', member);
      await chat.messagesAfter(group, before + 3, 1);
      expect(chat.lastRequest()).not.toContain('<desktop_state');
      expect(chat.lastToolNames()).not.toContain('desktop');
    });

    it('a stranger in a direct message never reaches the model, let alone the desktop', async () => {
      const requests = model.requests.length;
      const stranger = 4004;
      const before = telegram.messages(stranger).length;
      telegram.pushUpdate(telegram.textMessage({ chatId: stranger, text: 'take a screenshot', from: { id: stranger, first_name: 'Eve' } }));
      const [reply] = await chat.messagesAfter(stranger, before, 1);
      expect(reply!.text).toMatch(/pair|code/i);
      expect(model.requests.length).toBe(requests);
    });
  });
});
