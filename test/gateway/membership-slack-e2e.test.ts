/**
 * The bot removed from a Slack channel, through the real gateway process and bolt against the
 * fake Slack: `channel_left` (corpus: `channel-left`), `group_left` and a `member_left_channel`
 * about the bot pause the scheduled jobs of that channel, said in the log only. A person leaving,
 * and an event with a forged signature, change nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Scheduler } from '../../src/gateway/scheduler/index.ts';
import { createStoreFromEnv } from '../../src/store/from-env.ts';
import { ownerSeat } from '../../src/tools/turn-seat.ts';
import type { FakeSlack } from '../fakes/fake-slack-server.ts';
import type { StartedGateway } from '../helpers/gateway-process.ts';
import { startSlackGatewayFakes, type SlackGatewayFakes } from '../helpers/slack-gateway-fakes.ts';

const wait = 30_000;
const admin = 'U0ADMIN01';
const channels = { left: 'C043KSKGJUB', private: 'G0PRIVATE1', kicked: 'C0KICKED01', stays: 'C0STAYS001' };

/** Runs `use` with a scheduler over the gateway's store (reading only while it runs). */
async function withScheduler<T>(home: string, use: (scheduler: Scheduler) => Promise<T>): Promise<T> {
  const store = createStoreFromEnv({ OPERATOR_HOME: home });
  try {
    const scheduler = new Scheduler({ store, run: async () => ({ status: 'ok' }), notify: async () => {}, settings: { timezone: 'UTC' } });
    await scheduler.load();
    return await use(scheduler);
  } finally {
    await store.close();
  }
}

describe('Slack: the bot removed from a channel', () => {
  let fakes: SlackGatewayFakes;
  let slack: FakeSlack;
  let gateway: StartedGateway | undefined;

  beforeAll(async () => {
    fakes = await startSlackGatewayFakes('operator-membership-slack-');
    ({ slack } = fakes);
    await withScheduler(fakes.home, async (scheduler) => {
      for (const [name, channel] of Object.entries(channels)) {
        const target = { sessionKey: `slack:channel:${channel}`, address: { platform: 'slack', conversationId: channel }, scope: 'group' as const };
        await scheduler.create({ prompt: `daily ${name}`, name, every: '1d', target, profile: 'default', seat: ownerSeat }, { id: admin, admin: true, fromJob: false });
      }
    });
    gateway = await fakes.startGateway([admin]);
  }, 2 * wait);

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  const states = () => withScheduler(fakes.home, async (scheduler) => Object.fromEntries(scheduler.list().map((job) => [job.name, job.state])));
  const logged = (pattern: RegExp) => gateway!.output.waitFor(pattern, { timeoutMs: wait, label: String(pattern), stream: 'stderr' });

  it('changes nothing for a forged event or a person leaving', async () => {
    const forged = slack.envelope({ type: 'channel_left', channel: channels.stays, actor_id: 'U0STRANGER', event_ts: '1700000000.000100' });
    expect((await fakes.post(forged, { signWith: 'a-secret-the-stranger-guessed' })).status).toBe(401);
    expect((await fakes.post(slack.envelope({ type: 'member_left_channel', user: 'U0PERSON01', channel: channels.stays, channel_type: 'C', event_ts: '1700000000.000200' }))).status).toBe(200);
    // Handled after them: the bot leaves a private channel.
    expect((await fakes.post(slack.envelope({ type: 'group_left', channel: channels.private, actor_id: admin, event_ts: '1700000000.000300' }))).status).toBe(200);
    await logged(new RegExp(`slack:channel:${channels.private}: the bot was removed; 1 scheduled job there paused`));
    expect(await states()).toMatchObject({ stays: 'active', left: 'active', private: 'paused' });
    expect(gateway!.output.all()).not.toContain(`slack:channel:${channels.stays}:`);
  });

  it('pauses the jobs of a channel the bot left (corpus: channel-left) or was removed from, in the log only', async () => {
    const posted = slack.callsOf('chat.postMessage').length;
    // The corpus sample's event, in a fresh envelope.
    expect((await fakes.post(slack.envelope({ type: 'channel_left', channel: channels.left, actor_id: 'U043H11ES4V', event_ts: '1700000000.000400' }))).status).toBe(200);
    expect((await fakes.post(slack.envelope({ type: 'member_left_channel', user: slack.bot.userId, channel: channels.kicked, channel_type: 'C', event_ts: '1700000000.000500' }))).status).toBe(200);
    await logged(new RegExp(`slack:channel:${channels.left}: the bot was removed; 1 scheduled job there paused`));
    await logged(new RegExp(`slack:channel:${channels.kicked}: the bot was removed; 1 scheduled job there paused`));
    expect(await states()).toMatchObject({ left: 'paused', kicked: 'paused', stays: 'active' });
    expect(slack.callsOf('chat.postMessage')).toHaveLength(posted);
  });
});
