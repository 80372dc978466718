/**
 * A Slack Socket Mode frame that makes `@slack/socket-mode` throw does not take the gateway down
 * (issue 31). An `events_api` envelope whose payload has no `event` (an `app_rate_limited` notice,
 * as Slack's docs show it) makes the SDK throw in its own frame handling (`reading 'type'` of
 * undefined), in an async listener nothing awaits: before the boundary of
 * `src/channels/slack/guarded-socket.ts` the rejection ended the process. Through the real
 * process and the real SDKs against the fakes: the throw is reported with the platform and the
 * event type, counted in `operator_outside_errors_total`, the envelope acknowledged (so Slack
 * does not send it again), and Slack (on the same socket) and Telegram go on answering.
 *
 * Mutation check: with `guardSocketFrames(client, options.outside)` removed from
 * `socket-mode.ts`, the process exits (code 1, through the graceful stop) and the test fails.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEveryPlatformGateway, type EveryPlatformGateway } from '../helpers/every-platform-gateway.ts';

const wait = 30_000;

describe('a Slack Socket Mode frame the SDK cannot read', () => {
  let world: EveryPlatformGateway;

  beforeAll(async () => {
    world = await startEveryPlatformGateway('operator-isolation-slack-');
  }, 120_000);

  afterAll(async () => {
    await world?.close();
  });

  it('is dropped, acknowledged and reported; the process, Slack and Telegram go on', async () => {
    const { slack, gateway } = world;
    const exits: (number | null)[] = [];
    void gateway.exited.then((code) => exits.push(code));

    const notice = { token: 'legacy-verification-token', type: 'app_rate_limited', team_id: slack.bot.teamId, minute_rate_limited: Math.floor(Date.now() / 60_000) * 60, api_app_id: slack.bot.appId };
    const envelope = slack.socket.deliver({ kind: 'json', body: notice });
    await gateway.output.waitFor(/"event":"outside\.error","platform":"slack","source":"slack","handling":"app_rate_limited","error":"TypeError/, { stream: 'stderr', timeoutMs: wait, label: 'the report of the frame that threw' });
    await slack.waitFor((fake) => fake.socket.acked(envelope.envelope_id), wait);

    await world.answers('slack', 'Slack still answers.', wait);
    await world.answers('telegram', 'Telegram still answers.', wait);

    expect(exits).toEqual([]);
    expect(await world.metrics()).toMatch(/operator_outside_errors_total\{source="slack",event="app_rate_limited"\} 1\b/);
  });
});
