/**
 * What a Telegram end-to-end test runs the gateway against: the fake model server, the fake Bot
 * API server and a temp OPERATOR_HOME, with the gateway environment that joins them up.
 */
import { startFakeModelServer } from '../fakes/fake-model-server.ts';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import { startFakeTelegramServer } from '../fakes/fake-telegram-server.ts';
import type { FakeDraftSupport, FakeTelegram } from '../fakes/fake-telegram-server.ts';
import { fakeAnthropicEnv } from './fake-model-env.ts';
import { spawnGateway } from './gateway-process.ts';
import type { GatewayProcess } from './gateway-process.ts';
import { createTempHome, removeTempHome } from './temp-home.ts';

/** The fakes of a Telegram end-to-end test, and the gateway's home. */
export interface TelegramGatewayFakes {
  model: FakeModelServer;
  telegram: FakeTelegram;
  /** HOME and OPERATOR_HOME of the gateway; kept across restarts, removed by {@link close}. */
  home: string;
  /**
   * The gateway's environment (besides HOME, OPERATOR_HOME and PORT): the fake model, the fake
   * Bot API by long polling, the Telegram users `admins` as admins, and background memory
   * reviews off, so that every model request a test sees is one of its own turns.
   */
  env(admins: readonly number[]): Record<string, string>;
  /** Closes both servers and removes the home (stop the gateway first). */
  close(): Promise<void>;
}

/**
 * Starts both fake servers and makes a temp home named `<homePrefix><random>`. `drafts` is how the
 * fake Bot API answers sendMessageDraft (default: it takes drafts, so DM replies stream in drafts;
 * `unknown-method` makes it a server without them, where DM replies stream by edited previews).
 */
export async function startTelegramGatewayFakes(homePrefix: string, options: { drafts?: FakeDraftSupport } = {}): Promise<TelegramGatewayFakes> {
  const model = await startFakeModelServer();
  const telegram = await startFakeTelegramServer({ drafts: options.drafts });
  const home = createTempHome(homePrefix);
  return {
    model,
    telegram,
    home,
    env: (admins) => ({
      ...fakeAnthropicEnv(model),
      TELEGRAM_BOT_TOKEN: telegram.token,
      TELEGRAM_API_ROOT: telegram.apiRoot,
      OPERATOR_ADMINS: admins.map((id) => `telegram:${id}`).join(','),
      OPERATOR_REVIEW_EVERY: '0',
    }),
    async close() {
      await telegram.close();
      await model.close();
      removeTempHome(home);
    },
  };
}

/**
 * Spawns the gateway against `fakes` with `admins` and resolves once it has registered its command
 * menu with the fake Bot API, which it does when its Telegram channel starts. If that does not
 * happen within `timeoutMs` (default 45 s), the gateway is killed and the error quotes what it
 * printed. `options` gives the process a working directory (the tools' workspace) and more
 * environment.
 */
export async function startTelegramGateway(
  fakes: TelegramGatewayFakes,
  admins: readonly number[],
  timeoutMs = 45_000,
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<GatewayProcess> {
  const gateway = spawnGateway({ home: fakes.home, env: { ...fakes.env(admins), ...options.env }, cwd: options.cwd });
  try {
    await fakes.telegram.waitFor((fake) => fake.callsOf('setMyCommands').length > 0, timeoutMs);
  } catch {
    await gateway.kill();
    throw new Error(`gateway did not register commands:\n${gateway.output.all()}`);
  }
  return gateway;
}

/**
 * Waits for the bot's message containing `contains` in `chatId`, a preview still streaming
 * included (a notice shown in one); on time-out the error quotes what the gateway printed. To read
 * an answer once it is whole, use {@link findFinalBotMessage}.
 */
export function findBotMessage(telegram: FakeTelegram, gateway: GatewayProcess, chatId: number, contains: string, timeoutMs: number) {
  return findMessage(telegram, gateway, chatId, (text) => text.includes(contains), `containing "${contains}"`, timeoutMs);
}

/**
 * Waits for the bot's message in `chatId` whose text is exactly `text`: the answer after its last
 * edit, not its preview (which ends in " …" while it streams); on time-out the error quotes what
 * the gateway printed.
 */
export function findFinalBotMessage(telegram: FakeTelegram, gateway: GatewayProcess, chatId: number, text: string, timeoutMs: number) {
  return findMessage(telegram, gateway, chatId, (shown) => shown === text, `reading "${text}"`, timeoutMs);
}

function findMessage(telegram: FakeTelegram, gateway: GatewayProcess, chatId: number, matches: (text: string) => boolean, what: string, timeoutMs: number) {
  return telegram.waitFor((fake) => fake.messages(chatId).find((message) => matches(message.text)), timeoutMs).catch((error: unknown) => {
    throw new Error(`no message ${what} in chat ${chatId}: ${String(error)}\n${gateway.output.all()}`);
  });
}
