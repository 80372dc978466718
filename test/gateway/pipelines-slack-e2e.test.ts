/**
 * A pipeline from Slack, through the real gateway process (HTTP events, signed), the fake Slack
 * and the fake model: `/operator run release GOAL` starts it, its gate is a Block Kit button row,
 * a press goes on to the tool step, and the last answer is said; `/operator answer` answers a
 * gate by typing.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeSlackMessage } from '../fakes/fake-slack-server.ts';
import type { StartedGateway } from '../helpers/gateway-process.ts';
import { startSlackGatewayFakes, type SlackGatewayFakes } from '../helpers/slack-gateway-fakes.ts';

const admin = { id: 'U0ADMIN01', name: 'Ada' };
const adminDm = 'D0ADMIN01';

/** A draft, a gate (Publish / Drop) and a tool step that writes published.txt. */
const release = readFileSync(join(import.meta.dirname, '../pipelines/fixtures/release-gate.dot'), 'utf8');

describe('pipelines from Slack', () => {
  let fakes: SlackGatewayFakes;
  let gateway: StartedGateway;
  let workspace: string;

  beforeAll(async () => {
    fakes = await startSlackGatewayFakes('operator-pipelines-slack-');
    mkdirSync(join(fakes.home, 'pipelines'), { recursive: true });
    writeFileSync(join(fakes.home, 'pipelines', 'release.dot'), release);
    fakes.model.setDefault({ text: 'Draft: the Slack notes' });
    // The gateway's working directory: the tool step writes there.
    workspace = mkdtempSync(join(tmpdir(), 'operator-pipelines-slack-ws-'));
    gateway = await fakes.startGateway([admin.id], { cwd: workspace });
  });
  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
    rmSync(workspace, { recursive: true, force: true });
  });

  const botMessage = (starting: string) =>
    fakes.slack.waitFor((fake) => fake.botMessages(adminDm).find((message: FakeSlackMessage) => fake.display(message).text.startsWith(starting)), 15_000).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${gateway.output.all()}`);
    });

  it('starts with /operator run, asks with a button row, and goes on when it is pressed', async () => {
    const { slack } = fakes;
    expect((await fakes.post(slack.slashCommand({ channel: adminDm, from: admin, text: 'run release The Slack notes' }))).status).toBe(200);
    const started = await botMessage('Started run ');
    const id = /Started run ([0-9a-f]{6})/.exec(slack.display(started).text)![1]!;
    const question = await botMessage(`[${id}] Publish this draft?`);
    const buttons = slack.display(question).buttons!.flat();
    expect(buttons.map((button) => button.label)).toEqual(['Publish', 'Drop']);
    const publish = buttons.find((button) => button.label === 'Publish')!;
    expect((await fakes.post(slack.blockAction({ channel: adminDm, messageTs: question.ts, value: publish.value, from: admin }))).status).toBe(200);
    await botMessage('Draft: the Slack notes');
    expect(readFileSync(join(workspace, 'published.txt'), 'utf8')).toBe('The Slack notes\n');
  });

  it('takes a typed /operator answer for a gate', async () => {
    const { slack } = fakes;
    await fakes.post(slack.slashCommand({ channel: adminDm, from: admin, text: 'run release Typed notes' }));
    const started = await slack.waitFor((fake) => fake.botMessages(adminDm).find((message: FakeSlackMessage) => /Started run [0-9a-f]{6} of release: Typed notes/.test(fake.display(message).text)), 15_000);
    const id = /Started run ([0-9a-f]{6})/.exec(slack.display(started).text)![1]!;
    await botMessage(`[${id}] Publish this draft?`);
    await fakes.post(slack.slashCommand({ channel: adminDm, from: admin, text: `answer ${id} drop` }));
    await botMessage('Drop.');
    await slack.waitFor((fake) => fake.botMessages(adminDm).some((message: FakeSlackMessage) => fake.display(message).text.startsWith(`Pipeline release [${id}] finished`)), 15_000);
  });
});
