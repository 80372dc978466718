/**
 * What a Slack end-to-end test runs the gateway against: the fake model server, the fake Slack
 * (Web API, and the signed requests Slack posts to the app) and a temp OPERATOR_HOME, with the
 * gateway environment that joins them up.
 */
import { startFakeModelServer } from '../fakes/fake-model-server.ts';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import { startFakeSlackServer } from '../fakes/fake-slack-server.ts';
import type { FakeSlack, SendOptions, SendResult, SlackRequest } from '../fakes/fake-slack-server.ts';
import { fakeAnthropicEnv } from './fake-model-env.ts';
import { startGateway, type StartedGateway } from './gateway-process.ts';
import { createTempHome, removeTempHome } from './temp-home.ts';

/** The fakes of a Slack end-to-end test, and the gateway's home. */
export interface SlackGatewayFakes {
  model: FakeModelServer;
  slack: FakeSlack;
  /** HOME and OPERATOR_HOME of the gateway; removed by {@link close}. */
  home: string;
  /**
   * Starts the gateway with the Slack users `admins` as admins and background reviews off, by
   * HTTP events (the signing secret) or, with `socketMode`, by Socket Mode (the app token alone);
   * in `cwd` (its tools' workspace; default the test runner's), with more environment `env`.
   */
  startGateway(admins: readonly string[], options?: { socketMode?: boolean; cwd?: string; env?: Record<string, string> }): Promise<StartedGateway>;
  /** Signs and posts `request` to the running gateway's `/webhooks/slack`. */
  post(request: SlackRequest, options?: Omit<SendOptions, 'signingSecret'>): Promise<SendResult>;
  /** Closes both servers and removes the home (stop the gateway first). */
  close(): Promise<void>;
}

/** Starts both fake servers and makes a temp home named `<homePrefix><random>`. */
export async function startSlackGatewayFakes(homePrefix: string): Promise<SlackGatewayFakes> {
  const model = await startFakeModelServer();
  const slack = await startFakeSlackServer();
  const home = createTempHome(homePrefix);
  let origin: string | undefined;
  return {
    model,
    slack,
    home,
    async startGateway(admins, options = {}) {
      const env = {
        ...fakeAnthropicEnv(model),
        SLACK_BOT_TOKEN: slack.bot.token,
        ...(options.socketMode ? { SLACK_APP_TOKEN: slack.socket.appToken } : { SLACK_SIGNING_SECRET: slack.signingSecret }),
        SLACK_API_URL: slack.apiUrl,
        OPERATOR_ADMINS: admins.map((id) => `slack:${id}`).join(','),
        OPERATOR_REVIEW_EVERY: '0',
        ...options.env,
      };
      const gateway = await startGateway({ home, env, cwd: options.cwd });
      origin = gateway.origin;
      return gateway;
    },
    post(request, options) {
      if (!origin) throw new Error('start the gateway first');
      return slack.send(`${origin}/webhooks/slack`, request, options);
    },
    async close() {
      await slack.close();
      await model.close();
      removeTempHome(home);
    },
  };
}
