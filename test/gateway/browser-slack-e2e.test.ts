/**
 * A browser screenshot delivered to Slack: the real gateway process with its Slack channel, the
 * fake Slack and the fake model server. The image the agent asks to send is uploaded after the
 * reply, in the conversation, once.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StartedGateway } from '../helpers/gateway-process.ts';
import { whenChromiumInstalled } from '../helpers/chromium.ts';
import { startSlackGatewayFakes, type SlackGatewayFakes } from '../helpers/slack-gateway-fakes.ts';
import { startPageServer, type PageServer } from '../browser/page-server.ts';

const admin = { id: 'U0ADMIN01', name: 'Ada' };
const adminDm = 'D0ADMIN01';

/**
 * How long the upload may take. The turn starts chromium in bubblewrap and loads a page, which the
 * gateway allows 30 s each; on a loaded machine that alone outlasts 15 s. The wait ends with the
 * upload, so a longer limit costs nothing when things go well.
 */
const wait = 60_000;

whenChromiumInstalled('browser screenshots to Slack', 'the Slack browser test', () => {
  describe('browser screenshots to Slack', { timeout: 2 * wait }, () => {
    let fakes: SlackGatewayFakes;
    let pages: PageServer;
    let gateway: StartedGateway;

    beforeAll(async () => {
      pages = await startPageServer();
      fakes = await startSlackGatewayFakes('operator-browser-slack-e2e-');
      writeFileSync(join(fakes.home, 'operator.json'), JSON.stringify({ allowPrivateNetwork: true }));
      gateway = await fakes.startGateway([admin.id]);
    });

    afterAll(async () => {
      await gateway?.stop();
      await fakes?.close();
      await pages?.close();
    });

    it('uploads the screenshot after the reply, once', async () => {
      const { model, slack } = fakes;
      model.enqueue(
        { toolCalls: [{ name: 'browser', arguments: { action: 'navigate', url: `${pages.url}/form` } }] },
        { toolCalls: [{ name: 'browser', arguments: { action: 'screenshot', send: true } }] },
        { text: 'Here is the form.' },
      );
      const result = await fakes.post(slack.envelope(slack.personMessage({ channel: adminDm, from: admin, text: 'show me the form' })));
      expect(result.status).toBe(200);
      const shared = await slack.waitFor((fake) => (fake.sharedFiles(adminDm, null).length > 0 ? fake.sharedFiles(adminDm, null) : undefined), wait).catch((error: unknown) => {
        throw new Error(`${String(error)}\n${gateway.output.all()}`);
      });
      expect(shared).toHaveLength(1);
      expect(shared[0]!.name).toBe('screenshot.png');
      expect(Buffer.from(shared[0]!.bytes).subarray(0, 4).toString('hex')).toBe('89504e47');
      expect(slack.botMessages(adminDm, null).some((message) => slack.display(message).text.includes('Here is the form.'))).toBe(true);
    });
  });
});
