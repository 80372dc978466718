/**
 * The chaos harness: the real gateway process answers direct messages in many chats over a fake
 * platform (Telegram by webhook or long polling, Slack's Events API, Discord's gateway) while it
 * is killed with SIGKILL at random moments and started again on the same OPERATOR_HOME. At the
 * end every acknowledged message must be answered by exactly one whole answer, in order per chat,
 * with no preview left unfinished. The run is seeded (`seed`): the same seed sends the same
 * messages to the same chats and kills at the same moments (the gateway's timing still varies).
 *
 * @example
 * const summary = await runChaos('telegram-webhook', { mode: 'webhook', messages: 200, chats: 24, kills: 5, seed: 1 });
 * console.log(describeChaos(summary));
 */
import { runChaos as runThrough, type ChaosOptions, type ChaosSummary } from './chaos-driver.ts';
import { discordPlatform } from './discord-chaos.ts';
import { seededRandom } from './random.ts';
import { slackPlatform } from './slack-chaos.ts';
import { telegramPlatform } from './telegram-chaos.ts';

export type { ChaosOptions, ChaosSummary } from './chaos-driver.ts';
export { describeChaos, chaosTable, isClean } from './chaos-report.ts';

/** The platforms (and Telegram's two modes) a chaos run can go through. */
export const chaosPlatforms = ['telegram-webhook', 'telegram-polling', 'slack', 'discord'] as const;
/** One of {@link chaosPlatforms}. */
export type ChaosPlatformName = (typeof chaosPlatforms)[number];

/** Runs one chaos run through `platform` (for Telegram, `options.mode` is taken from the name). */
export async function runChaos(platform: ChaosPlatformName, options: Omit<ChaosOptions, 'mode'> & { mode?: ChaosOptions['mode'] }): Promise<ChaosSummary> {
  const random = seededRandom(options.seed ^ 0x7e1e);
  if (platform === 'slack') return runThrough('Slack events', await slackPlatform(), { ...options, mode: 'webhook' });
  if (platform === 'discord') return runThrough('Discord gateway', await discordPlatform(), { ...options, mode: 'webhook' });
  const mode = platform === 'telegram-webhook' ? 'webhook' : 'polling';
  return runThrough(`Telegram ${mode}`, await telegramPlatform(mode, random, options.startTimeoutMs), { ...options, mode });
}

/** A chaos run over the fake Telegram in `options.mode`. */
export function runTelegramChaos(options: ChaosOptions): Promise<ChaosSummary> {
  return runChaos(options.mode === 'webhook' ? 'telegram-webhook' : 'telegram-polling', options);
}

/** A chaos run over the fake Slack's Events API (`options.mode` is ignored). */
export function runSlackChaos(options: Omit<ChaosOptions, 'mode'>): Promise<ChaosSummary> {
  return runChaos('slack', options);
}

/** A chaos run over the fake Discord gateway (`options.mode` is ignored). */
export function runDiscordChaos(options: Omit<ChaosOptions, 'mode'>): Promise<ChaosSummary> {
  return runChaos('discord', options);
}
