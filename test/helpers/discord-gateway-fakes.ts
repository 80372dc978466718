/**
 * What a Discord end-to-end test runs the gateway against: the fake model server, the fake
 * Discord (REST and the gateway websocket) and a temp OPERATOR_HOME, with the gateway environment
 * that joins them up.
 */
import { startFakeDiscordServer } from '../fakes/fake-discord-server.ts';
import type { FakeDiscord } from '../fakes/fake-discord-server.ts';
import { startFakeModelServer } from '../fakes/fake-model-server.ts';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import { fakeAnthropicEnv } from './fake-model-env.ts';
import { startGateway, type StartedGateway } from './gateway-process.ts';
import { createTempHome, removeTempHome } from './temp-home.ts';

/** The fakes of a Discord end-to-end test, and the gateway's home. */
export interface DiscordGatewayFakes {
  model: FakeModelServer;
  discord: FakeDiscord;
  /** HOME and OPERATOR_HOME of the gateway; removed by {@link close}. */
  home: string;
  /**
   * Starts the gateway with the Discord users `admins` as admins and background reviews off;
   * `env` adds to (or overrides) its environment (e.g. `OPERATOR_DM_POLICY`); `cwd` is its tools'
   * workspace (default the test runner's); `timeoutMs` is how long its start may take (default
   * `startGateway`'s).
   */
  startGateway(admins: readonly string[], env?: Readonly<Record<string, string>>, cwd?: string, timeoutMs?: number): Promise<StartedGateway>;
  /** Closes both servers and removes the home (stop the gateway first). */
  close(): Promise<void>;
}

/** Starts both fake servers and makes a temp home named `<homePrefix><random>`. */
export async function startDiscordGatewayFakes(homePrefix: string): Promise<DiscordGatewayFakes> {
  const model = await startFakeModelServer();
  const discord = await startFakeDiscordServer();
  const home = createTempHome(homePrefix);
  return {
    model,
    discord,
    home,
    startGateway: (admins, env = {}, cwd, timeoutMs) =>
      startGateway({
        home,
        cwd,
        env: {
          ...fakeAnthropicEnv(model),
          DISCORD_BOT_TOKEN: discord.token,
          DISCORD_API_URL: discord.apiUrl,
          OPERATOR_ADMINS: admins.map((id) => `discord:${id}`).join(','),
          OPERATOR_REVIEW_EVERY: '0',
          ...env,
        },
      }, timeoutMs),
    async close() {
      await discord.close();
      await model.close();
      removeTempHome(home);
    },
  };
}
