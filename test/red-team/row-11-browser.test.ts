/**
 * Issue 30, row 11: the agent's chromium ran with `--no-sandbox` and the gateway's whole
 * environment, so a prompt injection plus a renderer bug owned the gateway's secrets. Tried again
 * through the real gateway process (Telegram long polling): the owner's agent opens a page that
 * carries an injection, and follows it as far as the browser lets it. Then every process the
 * gateway started for the browser is read from outside, through /proc: no chromium process runs
 * with `--no-sandbox` outside bubblewrap (here, as root, every one runs inside it, and chromium's
 * own sandbox is on inside as well), no environment holds a planted secret in any form (plain,
 * base64, hex), and chromium's view of the filesystem holds neither OPERATOR_HOME nor /root.
 * What reached the model and the chat holds none of them either.
 *
 * Mutation check (run by hand on 2026-11-29): with the pool launching chromium as before this
 * change (`chromium.launch({ executablePath, headless })`: Playwright's `--no-sandbox`, the
 * gateway's environment, no bubblewrap), the arguments test and the environment test fail (a
 * chromium process with `--no-sandbox` outside bubblewrap; GITHUB_TOKEN in the browser's
 * environment), and the view test fails (the browser's root shows OPERATOR_HOME).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumBelow, descendantsOf, ownPidNamespace } from '../browser/chromium-processes.ts';
import { startPageServer, type PageServer } from '../browser/page-server.ts';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import type { FakeTelegram } from '../fakes/fake-telegram-server.ts';
import { whenChromiumInstalled } from '../helpers/chromium.ts';
import type { GatewayProcess } from '../helpers/gateway-process.ts';
import { everythingSentToModel, expectNoSecretIn } from '../helpers/secret-forms.ts';
import { findBotMessage, startTelegramGateway, startTelegramGatewayFakes, type TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

const admin = 1111;
const wait = 90_000;

/** Secrets in the gateway's environment besides the fakes' own (the bot token, the model key). */
const planted = {
  GITHUB_TOKEN: 'ghp_row11PlantedBrowserSecret0123456789',
  OPENAI_API_KEY: 'sk-row11-planted-openai-key-5544',
  DATABASE_URL: 'postgres://operator:row11-db-password-7788@db.internal/app',
  OPERATOR_METRICS_TOKEN: 'row11-metrics-token-Qw3Er5Ty7Ui9Op1',
};

whenChromiumInstalled('row 11: the browser', 'the red-team test of row 11', () => {
  describe("row 11: the agent's chromium, from the owner's seat under prompt injection", () => {
    let fakes: TelegramGatewayFakes;
    let model: FakeModelServer;
    let telegram: FakeTelegram;
    let gateway: GatewayProcess;
    let pages: PageServer;
    let home: string;
    let secrets: string[];

    beforeAll(async () => {
      pages = await startPageServer();
      fakes = await startTelegramGatewayFakes('operator-row11-');
      ({ model, telegram, home } = fakes);
      // The test pages are on 127.0.0.1: the private network is allowed here, and only here.
      writeFileSync(join(home, 'operator.json'), JSON.stringify({ allowPrivateNetwork: true }));
      gateway = await startTelegramGateway(fakes, [admin], wait, { cwd: home, env: planted });
      const control = (JSON.parse(readFileSync(join(home, 'gateway.json'), 'utf8')) as { token: string }).token;
      const env = fakes.env([admin]);
      secrets = [...Object.values(planted), 'row11-db-password-7788', env.TELEGRAM_BOT_TOKEN!, env.ANTHROPIC_API_KEY!, control];

      // The owner asks for the page; the model obeys what the page says, as far as the browser lets it.
      model.enqueue(
        { toolCalls: [{ name: 'browser', arguments: { action: 'navigate', url: `${pages.url}/injection` } }] },
        {
          toolCalls: [
            { name: 'browser', arguments: { action: 'navigate', url: 'file:///proc/self/environ' } },
            { name: 'browser', arguments: { action: 'navigate', url: 'chrome://version' } },
            { name: 'browser', arguments: { action: 'tab_new', url: 'view-source:file:///proc/self/environ' } },
          ],
        },
        { text: 'Read the release notes.' },
      );
      telegram.pushUpdate(telegram.textMessage({ chatId: admin, text: 'summarise the release notes page', from: { id: admin, first_name: 'Ada' } }));
      await findBotMessage(telegram, gateway, admin, 'Read the release notes.', wait);
    }, 200_000);

    afterAll(async () => {
      await gateway?.stop();
      await fakes?.close();
      await pages?.close();
    });

    it('opened the page for the owner, in a browser the gateway started', () => {
      expect(JSON.stringify(model.requests.at(-1)!.body.messages)).toContain('Release notes');
      expect(chromiumBelow(gateway.child.pid!).length).toBeGreaterThan(2);
    });

    it('runs no chromium process with --no-sandbox outside bubblewrap; here every one is inside it, in a PID namespace of its own', () => {
      const chromium = chromiumBelow(gateway.child.pid!);
      for (const view of chromium) {
        const where = `${view.pid} ${view.argv.slice(0, 3).join(' ')}`;
        expect(view.argv.includes('--no-sandbox') && !view.inBubblewrap, `--no-sandbox outside bubblewrap: ${where}`).toBe(false);
        expect(view.inBubblewrap, where).toBe(true);
        expect(view.pidNamespace).not.toBe(ownPidNamespace());
      }
      // A page's code runs in a renderer; each is under chromium's seccomp filter.
      const renderers = chromium.filter((view) => view.argv.includes('--type=renderer'));
      expect(renderers.length).toBeGreaterThan(0);
      for (const renderer of renderers) expect(renderer.seccomp, `renderer ${renderer.pid}`).toBe(2);
    });

    it('gives the browser no planted secret in any form, in the environment of any process it runs', () => {
      const browser = descendantsOf(gateway.child.pid!).filter((view) => view.comm === 'bwrap' || /chrom/.test(view.comm));
      expect(browser.length).toBeGreaterThan(2);
      for (const view of browser) expectNoSecretIn(view.environ, secrets, `the environment of ${view.comm} (${view.pid})`);
    });

    it("shows chromium neither OPERATOR_HOME (tokens, transcripts) nor /root", () => {
      const main = chromiumBelow(gateway.child.pid!).find((view) => !view.argv.some((arg) => arg.startsWith('--type=')))!;
      const root = `/proc/${main.pid}/root`;
      expect(existsSync(`${root}/usr/lib`)).toBe(true);
      expect(existsSync(`${root}${home}`)).toBe(false);
      expect(existsSync(`${root}${join(home, 'gateway.json')}`)).toBe(false);
      expect(existsSync(`${root}/root`)).toBe(false);
    });

    it('refused what the injection asked for, and nothing secret reached the model or the chat', () => {
      const results = JSON.stringify(model.requests.at(-1)!.body.messages);
      expect(results).toContain('only http and https addresses may be opened');
      expectNoSecretIn(everythingSentToModel(model.requests), secrets, 'the model');
      expectNoSecretIn(telegram.messages(admin).map((message) => message.text).join('\n'), secrets, 'the chat');
    });
  });
});
