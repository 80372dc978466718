/**
 * A clip recorded in Slack, end to end: the real gateway process with its Slack channel, the fake
 * Slack serving the clip's bytes at its private URL to the bot's token, and the fake model server
 * answering OpenAI's `/v1/audio/transcriptions` and the chat call. The clip reaches the model as
 * the person's words, marked as a voice note with the length Slack gave.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import type { FakeSlack } from '../fakes/fake-slack-server.ts';
import type { StartedGateway } from '../helpers/gateway-process.ts';
import { startSlackGatewayFakes, type SlackGatewayFakes } from '../helpers/slack-gateway-fakes.ts';

const admin = { id: 'U0ADMIN01', name: 'Ada' };
const adminDm = 'D0ADMIN01';

describe('voice clips through Slack', () => {
  let fakes: SlackGatewayFakes;
  let model: FakeModelServer;
  let slack: FakeSlack;
  let gateway: StartedGateway;

  beforeAll(async () => {
    fakes = await startSlackGatewayFakes('operator-voice-slack-e2e-');
    ({ model, slack } = fakes);
    gateway = await fakes.startGateway([admin.id], { env: { OPENAI_API_KEY: 'sk-test-voice-slack-0123456789', OPENAI_BASE_URL: model.openaiBaseURL } });
  });

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  it("gives a recorded clip to the model as the person's words", async () => {
    const bytes = new TextEncoder().encode('webm clip bytes');
    const path = '/files-pri/T0TEAM-F0CLIP1/download/audio_message.webm';
    slack.addFile({ id: 'F0CLIP1', name: 'audio_message.webm', mimetype: 'audio/webm', bytes, path });
    const file = { id: 'F0CLIP1', name: 'audio_message.webm', mimetype: 'audio/webm', subtype: 'slack_audio', duration_ms: 7000, size: bytes.length, url_private_download: `${slack.origin}${path}` };
    model.enqueueTranscript({ text: 'the meeting moved to Friday' });
    model.enqueue({ text: 'Friday it is.' });
    const result = await fakes.post(slack.envelope(slack.personMessage({ channel: adminDm, from: admin, text: '', subtype: 'file_share', files: [file] })));
    expect(result.status).toBe(200);
    await slack.waitFor((fake) => fake.botMessages(adminDm).find((message) => fake.display(message).text.includes('Friday it is.')), 15_000).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${gateway.output.all()}`);
    });
    expect(JSON.stringify(model.requests.at(-1)!.body.messages.at(-1))).toContain('[voice, 0:07] the meeting moved to Friday');
    expect(model.transcriptions).toHaveLength(1);
    expect(model.transcriptions[0]).toMatchObject({ fileName: 'audio_message.webm', mediaType: 'audio/webm' });
    expect(Buffer.from(model.transcriptions[0]!.bytes).toString()).toBe('webm clip bytes');
  });
});
