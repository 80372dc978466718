/**
 * `npm run chaos`: the long chaos run. The real gateway process over the fake Telegram (webhook
 * and long polling), the fake Slack (Events API) and the fake Discord (gateway websocket), killed
 * with SIGKILL dozens of times while it takes and answers thousands of messages; prints what the
 * chats show at the end (answered once, lost, twice, unfinished previews, order) for each run and
 * a table of all runs. Settings by environment:
 * `CHAOS_MESSAGES` (2000), `CHAOS_KILLS` (30), `CHAOS_CHATS` (60), `CHAOS_SEED` (random),
 * `CHAOS_PLATFORMS` (`telegram,slack,discord`; also `telegram-webhook`, `telegram-polling`),
 * `CHAOS_MODES` (Telegram's, for `telegram`: `webhook,polling`), `CHAOS_BUSY` (`followUp`; any of
 * `followUp,steer,interrupt`), `CHAOS_ORPHAN_MS` (100; Slack and Discord, whose fakes do not tell
 * when their answers went out: how long before a kill an unfinished, never edited preview whose id
 * the gateway never noted may have been taken to count as orphaned rather than dangling; see
 * `test/chaos/chaos-previews.ts`).
 * Exits 1 when any run lost a message, answered one twice, left a preview or broke an order.
 */
import os from 'node:os';
import { chaosPlatforms, chaosTable, describeChaos, isClean, runChaos, type ChaosOptions, type ChaosPlatformName, type ChaosSummary } from '../test/chaos/chaos-run.ts';

const numberOf = (name: string, fallback: number) => {
  const value = Number(process.env[name]);
  return process.env[name] !== undefined && Number.isInteger(value) && value >= 0 ? value : fallback;
};
const listOf = (name: string, fallback: string[]) => process.env[name]?.split(',').map((item) => item.trim()).filter(Boolean) ?? fallback;

const messages = numberOf('CHAOS_MESSAGES', 2000);
const kills = numberOf('CHAOS_KILLS', 30);
const chats = numberOf('CHAOS_CHATS', 60);
const seed = numberOf('CHAOS_SEED', Math.floor(Math.random() * 1_000_000));
const orphanWindowMs = numberOf('CHAOS_ORPHAN_MS', 100);
const busyModes = listOf('CHAOS_BUSY', ['followUp']);
const platforms: ChaosPlatformName[] = listOf('CHAOS_PLATFORMS', ['telegram', 'slack', 'discord']).flatMap((name) =>
  name === 'telegram' ? listOf('CHAOS_MODES', ['webhook', 'polling']).map((mode) => `telegram-${mode}`) : [name],
) as ChaosPlatformName[];
for (const name of [...platforms, ...busyModes]) {
  if (!(chaosPlatforms as readonly string[]).includes(name) && !['followUp', 'steer', 'interrupt'].includes(name)) {
    throw new Error(`npm run chaos: unknown platform or busy mode "${name}" (platforms: telegram, ${chaosPlatforms.join(', ')}; busy modes: followUp, steer, interrupt)`);
  }
}

const summaries: ChaosSummary[] = [];
for (const platform of platforms) {
  for (const busyMode of busyModes as NonNullable<ChaosOptions['busyMode']>[]) {
    const summary = await runChaos(platform, { messages, chats, kills, seed, busyMode, orphanWindowMs, settleMs: 180_000 });
    process.stdout.write(`${describeChaos(summary)}\n\n`);
    summaries.push(summary);
  }
}
const failed = summaries.filter((summary) => !isClean(summary)).length;
process.stdout.write(
  [
    chaosTable(summaries),
    '',
    `seed ${seed} (CHAOS_SEED=${seed}); ${os.cpus()[0]?.model ?? 'cpu'} x${os.cpus().length}, node ${process.version}, ${new Date().toISOString()}`,
    failed === 0 ? 'every run: nothing lost, nothing twice, no preview left, every chat in order' : `${failed} run(s) broke the promise`,
    '',
  ].join('\n'),
);
process.exitCode = failed === 0 ? 0 : 1;
