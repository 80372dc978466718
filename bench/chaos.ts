/**
 * `npm run chaos`: the long chaos run. The real gateway process over the fake Telegram (webhook and
 * long polling) and the fake Slack (Events API), killed with SIGKILL dozens of times while it takes
 * and answers thousands of messages, under each busy mode; prints what the chats show at the end (answered
 * once, lost, twice, unfinished previews, order) for each run. Settings by environment:
 * `CHAOS_MESSAGES` (2000), `CHAOS_KILLS` (30), `CHAOS_CHATS` (60), `CHAOS_SEED` (random),
 * `CHAOS_PLATFORMS` (`telegram,slack`), `CHAOS_MODES` (Telegram's: `webhook,polling`), `CHAOS_BUSY`
 * (`followUp`; any of `followUp,steer,interrupt`).
 * Exits 1 when any run lost a message, answered one twice, left a preview or broke an order.
 */
import os from 'node:os';
import { describeChaos, runTelegramChaos, type ChaosOptions, type ChaosSummary } from '../test/chaos/chaos-run.ts';
import { runSlackChaos } from '../test/chaos/slack-chaos.ts';

const numberOf = (name: string, fallback: number) => {
  const value = Number(process.env[name]);
  return Number.isFinite(value) && value > 0 ? value : fallback;
};
const listOf = <T extends string>(name: string, fallback: T[]) => (process.env[name]?.split(',').map((item) => item.trim()).filter(Boolean) as T[] | undefined) ?? fallback;

const messages = numberOf('CHAOS_MESSAGES', 2000);
const kills = numberOf('CHAOS_KILLS', 30);
const chats = numberOf('CHAOS_CHATS', 60);
const seed = numberOf('CHAOS_SEED', Math.floor(Math.random() * 1_000_000));
let failed = 0;
const rows: string[] = [];
/** The runs asked for: Telegram in each mode, Slack (events over HTTP), under each busy mode. */
const runs: { name: string; run: (busyMode: NonNullable<ChaosOptions['busyMode']>) => Promise<ChaosSummary> }[] = [];
const platforms = listOf('CHAOS_PLATFORMS', ['telegram', 'slack']);
if (platforms.includes('telegram')) {
  for (const mode of listOf<ChaosOptions['mode']>('CHAOS_MODES', ['webhook', 'polling'])) {
    runs.push({ name: `Telegram ${mode}`, run: (busyMode) => runTelegramChaos({ mode, messages, chats, kills, seed, busyMode, burstShare: 0.25, settleMs: 180_000 }) });
  }
}
if (platforms.includes('slack')) runs.push({ name: 'Slack events', run: (busyMode) => runSlackChaos({ messages, chats, kills, seed, busyMode, burstShare: 0.25, settleMs: 180_000 }) });
for (const { name, run } of runs) {
  for (const busyMode of listOf<NonNullable<ChaosOptions['busyMode']>>('CHAOS_BUSY', ['followUp'])) {
    const summary = await run(busyMode);
    process.stdout.write(`${describeChaos(summary)}\n\n`);
    const bad = summary.lost.length + summary.twice.length + summary.dangling.length + summary.other.length + summary.outOfOrder.length;
    if (bad > 0) failed++;
    rows.push(`| ${name} | ${busyMode} | ${summary.sent} | ${summary.kills} | ${summary.once} | ${summary.lost.length} | ${summary.twice.length} | ${summary.dangling.length} | ${summary.orphaned.length} | ${summary.outOfOrder.length} | ${summary.redeliveries} | ${(summary.wallMs / 1000).toFixed(0)} s |`);
  }
}
process.stdout.write(
  [
    '| platform | busyMode | sent | kills | answered once | lost | twice | dangling previews | previews orphaned by a kill | chats out of order | webhook redeliveries | wall time |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
    '',
    `seed ${seed}; ${os.cpus()[0]?.model ?? 'cpu'} x${os.cpus().length}, node ${process.version}, ${new Date().toISOString()}`,
    failed === 0 ? 'every run: nothing lost, nothing twice' : `${failed} run(s) broke the promise`,
    '',
  ].join('\n'),
);
process.exitCode = failed === 0 ? 0 : 1;
