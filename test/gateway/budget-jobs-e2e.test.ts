/**
 * Jobs' and pipeline runs' spending caps through the real gateway process (the fake Bot API, the
 * real Anthropic SDK against the fake model, which reports each call's tokens): a new job says its
 * estimated cost and the job caps; a job whose day's spend and next run would pass its day cap is
 * skipped with a notice, once, and no model call, and `/schedule` shows why and what it spent; a
 * job's run stops at its cap a run; a pipeline run started from the chat stops at its own cap and
 * says so.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type GatewayProcess } from '../helpers/gateway-process.ts';
import { findBotMessage, findFinalBotMessage, startTelegramGatewayFakes, type TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

const admin = { id: 8201, first_name: 'Ada' };
const wait = 30_000;

describe("jobs' and pipeline runs' spending caps (Telegram, through the gateway)", () => {
  let fakes: TelegramGatewayFakes;
  let gateway: GatewayProcess;

  beforeAll(async () => {
    fakes = await startTelegramGatewayFakes('operator-budget-jobs-e2e-');
    // Jobs may run every 2 seconds here. A call of claude-sonnet-4-6 reserves about $0.50 (its
    // 32,000 output tokens), which fits a job's run and a pipeline run once under $0.70.
    writeFileSync(join(fakes.home, 'operator.json'), JSON.stringify({ schedule: { minIntervalMinutes: 2 / 60 }, budgets: { job: { run: 0.7, day: 1 }, pipelineRun: { run: 0.7 } } }));
    mkdirSync(join(fakes.home, 'pipelines'), { recursive: true });
    writeFileSync(join(fakes.home, 'pipelines', 'capped.dot'), 'digraph capped {\n  start [shape=Mdiamond]\n  draft [prompt="Draft: {goal}"]\n  refine [prompt="Refine the draft"]\n  done [shape=Msquare]\n  start -> draft -> refine -> done\n}\n');
    gateway = await startGateway({ home: fakes.home, env: fakes.env([admin.id]) }, wait);
  });

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  const say = (text: string) => fakes.telegram.pushUpdate(fakes.telegram.textMessage({ chatId: admin.id, text, from: admin }));
  /** The answer to `/schedule ...` that matches `expected`. */
  const command = async (text: string, expected: RegExp) => {
    const before = fakes.telegram.messages(admin.id).length;
    say(text);
    const answer = await fakes.telegram.waitFor((fake) => fake.messages(admin.id).slice(before).find((message) => expected.test(message.text)), wait);
    return answer.text;
  };
  /** What the `schedule` tool answered the model when it created a job. */
  const toolAnswer = () => model().requests.map((request) => JSON.stringify(request.body.messages.at(-1))).findLast((text) => text.includes('Scheduled job'))!;
  const model = () => fakes.model;

  it('skips a job whose next run would pass its day cap, with one notice and no model call, and /schedule says why and what it spent', async () => {
    // The creating turn (a tool call, then its answer), then the job's first run: 100,000 input
    // and 20,000 output tokens, $0.30 + $0.30 = $0.60. With that run's average, the next one
    // ($0.60 more) would pass the job's $1 a day.
    model().enqueue(
      { toolCalls: [{ name: 'schedule', arguments: { action: 'create', every: '2s', name: 'digest', prompt: 'Post the digest.' } }] },
      { text: 'Digest scheduled.' },
      { text: 'Digest one.', usage: { input: 100_000, output: 20_000 } },
    );
    say('post the digest every two seconds');
    await findFinalBotMessage(fakes.telegram, gateway, admin.id, 'Digest scheduled.', wait);
    const created = toolAnswer();
    const id = /Scheduled job ([0-9a-z]{8})/.exec(created)![1]!;
    expect(created).toMatch(/Estimated cost: \$0\.48\d\d a run \(one model call's worst case, until it has run\), \$\d+\.\d\d a day at up to 43200 runs a day\. Job caps: \$0\.7000 a run, \$1\.00 a day\. At this estimate the day cap holds 2 runs a day; the others are skipped with a notice\./);

    await findFinalBotMessage(fakes.telegram, gateway, admin.id, 'Digest one.', wait);
    const requests = model().requests.length;
    const notice = await findBotMessage(fakes.telegram, gateway, admin.id, `Skipped job "digest" (${id}):`, wait);
    expect(notice.text).toMatch(
      new RegExp(
        `^Skipped job "digest" \\(${id}\\): the job has spent \\$0\\.6000 today of its \\$1\\.00 a day \\(budgets\\.job\\.day\\), and a run is estimated at \\$0\\.6000 \\(the average of its run\\)\\. Its runs are skipped until the cap resets at ${tomorrow()} 00:00 UTC\\. Next run in \\d+ seconds? \\(`,
      ),
    );
    // The next due time is skipped too (two runs reported skipped), and said no more.
    const skipped = `"event":"job\\.fired"[^\\n]*"job":"${id}"[^\\n]*"status":"skipped"`;
    await gateway.output.waitFor(new RegExp(`(?:[\\s\\S]*?${skipped}){2}`), { stream: 'stderr', timeoutMs: wait, label: 'two runs skipped' });
    expect(fakes.telegram.messages(admin.id).filter((message) => message.text.startsWith(`Skipped job "digest"`))).toHaveLength(1);
    expect(model().requests).toHaveLength(requests);

    const listed = await command('/schedule', new RegExp(id));
    expect(listed).toContain(`${id} "digest"; active; next `);
    expect(listed).toContain('; last run skipped: skipped: the job has spent $0.6000 today of its $1.00 a day, and a run is estimated at $0.6000 (the average of its run); spent today $0.6000, $0.6000 a run on average (1 run); prompt: Post the digest.');
    expect(await command(`/schedule cancel ${id}`, /Cancelled/)).toBe(`Cancelled job "digest" (${id}).`);
  });

  it("stops a job's run at its cap a run, with the refusal in the chat", async () => {
    // The run's first call, a tool call billed $0.315, leaves no room under $0.70 for the next call's $0.50.
    model().enqueue(
      { toolCalls: [{ name: 'schedule', arguments: { action: 'create', delay_seconds: 1, name: 'check', prompt: 'Check the folder.' } }] },
      { text: 'Check scheduled.' },
      { toolCalls: [{ name: 'list_dir', arguments: { path: '.' } }], usage: { input: 100_000, output: 1_000 } },
    );
    say('check the folder in a second');
    await findFinalBotMessage(fakes.telegram, gateway, admin.id, 'Check scheduled.', wait);
    const id = /Scheduled job ([0-9a-z]{8})/.exec(toolAnswer())![1]!;
    const requests = model().requests.length;
    const refusal = "Not answered: this job run's spending cap of $0.7000 is reached ($0.3150 spent, $0.00 in calls under way).";
    await findFinalBotMessage(fakes.telegram, gateway, admin.id, refusal, wait);
    expect(model().requests).toHaveLength(requests + 1);
    const listed = await command('/schedule', new RegExp(`${id}.*last run`));
    expect(listed).toContain(`${id} "check"; done; last run error: ${refusal}; spent today $0.3150, $0.3150 a run on average (1 run)`);
  });

  it('stops a pipeline run started from the chat at its own cap, saying so at its end', async () => {
    // The draft's call is billed $0.315; the refining step's call would reserve $0.48 more, past $0.70.
    model().enqueue({ text: 'A draft of the notes.', usage: { input: 100_000, output: 1_000 } });
    const requests = model().requests.length;
    say('/run capped the release notes');
    const started = await findBotMessage(fakes.telegram, gateway, admin.id, 'Started run ', wait);
    const run = /Started run ([0-9a-f]{6}) of capped/.exec(started.text)?.[1];
    expect(run, started.text).toBeDefined();
    await findFinalBotMessage(
      fakes.telegram,
      gateway,
      admin.id,
      `Run ${run} of capped failed: Not answered: this pipeline run's spending cap of $0.7000 is reached ($0.3150 spent, $0.00 in calls under way).`,
      wait,
    );
    expect(model().requests).toHaveLength(requests + 1);
    expect(JSON.stringify(model().requests.at(-1)!.body.messages)).toContain('Draft: the release notes');
  });
});

/** Tomorrow's UTC date, `2026-12-01`. */
function tomorrow(): string {
  const next = new Date();
  next.setUTCDate(next.getUTCDate() + 1);
  return next.toISOString().slice(0, 10);
}
