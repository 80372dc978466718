/**
 * A preview Slack took from a process that was killed before it heard the preview's ts: the real
 * gateway process, killed right then, runs the turn again after the restart, finds that preview
 * in the conversation's history (`conversations.history`, which the bot's history scopes allow)
 * and finishes it, so the person sees one answer and no unfinished "…" beside it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import type { FakeSlack } from '../fakes/fake-slack-server.ts';
import type { StartedGateway } from '../helpers/gateway-process.ts';
import { startSlackGatewayFakes, type SlackGatewayFakes } from '../helpers/slack-gateway-fakes.ts';

const admin = { id: 'U0ADMIN01', name: 'Ada' };
const adminDm = 'D0ADMIN01';

describe('Slack: a preview whose ts the killed process never heard', () => {
  let fakes: SlackGatewayFakes;
  let model: FakeModelServer;
  let slack: FakeSlack;
  let gateway: StartedGateway | undefined;

  beforeAll(async () => {
    fakes = await startSlackGatewayFakes('operator-slack-lost-preview-');
    ({ model, slack } = fakes);
    gateway = await fakes.startGateway([admin.id]);
  });

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  it('is found after the restart and finished into the answer', async () => {
    model.enqueue({ text: `First try, ${'streaming slowly, '.repeat(20)}never done.`, chunkSize: 6, delayMs: 150 });
    // Slack takes the preview, and the connection drops before the gateway hears its ts.
    slack.failNext('chat.postMessage', { dropConnection: true, afterCarryingOut: true });
    const event = slack.personMessage({ channel: adminDm, from: admin, text: 'tell me a long story' });
    expect((await fakes.post(slack.envelope(event))).status).toBe(200);
    await slack.waitFor((fake) => fake.botMessages(adminDm).find((message) => message.text.endsWith('…')), 15_000);
    // Killed before the stream's next edit could send another preview (a second or more away).
    await gateway!.kill();
    gateway = undefined;

    model.enqueue({ text: 'The story, told whole after the restart.' });
    gateway = await fakes.startGateway([admin.id]);
    await slack.waitFor((fake) => fake.botMessages(adminDm).find((message) => message.text === 'The story, told whole after the restart.'), 20_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    // One message: the orphaned preview became the answer.
    expect(slack.botMessages(adminDm).map((message) => message.text)).toEqual(['The story, told whole after the restart.']);
    expect(slack.callsOf('conversations.history').length).toBeGreaterThan(0);
  });
});
