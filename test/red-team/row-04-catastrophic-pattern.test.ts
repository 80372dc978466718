/**
 * Issue 30, row 4: `grep` with the pattern `(a+)+b` over a line of `a`s froze the whole gateway:
 * `/healthz` stopped answering and SIGTERM was ignored until SIGKILL. Tried again through the real
 * gateway process (Telegram long polling) from a stranger's group (an allowlisted chat), whose own
 * folder holds such a line: while the search runs in the conversation's file worker, `/healthz`
 * answers every time it is asked, and SIGTERM ends the gateway within its grace, with exit code 0.
 * With a short `sandbox.fileTimeoutSeconds`, the search is stopped at its limit and the model is
 * told so; the gateway goes on answering.
 *
 * Mutation check (run by hand, 2026-11-29, on a copy of the tree built to dist/): with grep as it
 * was before (matching in the gateway process), the first test failed: no file worker ever took
 * the search, because the gateway's own event loop was running the pattern (it waited for a
 * worker until its limit). The time-limit test cannot pass there either: the old grep had none.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, sep } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { keySegment } from '../../src/gateway/dedupe.ts';
import type { GatewayProcess } from '../helpers/gateway-process.ts';
import { findBotMessage, startTelegramGateway, startTelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';
import type { TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

const admin = 1404;
const stranger = { id: 8808, first_name: 'Eve' };
const group = -100404;
const wait = 30_000;

/** Whether a file worker runs among the descendants of process `ancestor` (the gateway). */
function workerRunningUnder(ancestor: number): boolean {
  const parents = new Map<number, number>();
  const workers: number[] = [];
  for (const entry of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const parent = /^PPid:\s+(\d+)$/m.exec(readFileSync(`/proc/${entry}/status`, 'utf8'))?.[1];
      if (parent) parents.set(Number(entry), Number(parent));
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(`files${sep}worker${sep}main.js`)) workers.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return workers.some((pid) => {
    for (let current = parents.get(pid); current !== undefined && current > 1; current = parents.get(current)) if (current === ancestor) return true;
    return false;
  });
}

/** Resolves once `condition` holds, looking every 50 ms; rejects after `timeoutMs`. */
async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('the condition did not come true in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('row 4: a catastrophic pattern in a stranger\'s group', { timeout: 120_000 }, () => {
  let fakes: TelegramGatewayFakes | undefined;
  let gateway: GatewayProcess | undefined;

  afterEach(async () => {
    await gateway?.stop();
    await fakes?.close();
    gateway = undefined;
    fakes = undefined;
  });

  /** A gateway whose file tools may take `seconds`, with the stranger's group holding a line of 5,000 `a`s. */
  async function start(seconds: number): Promise<{ fakes: TelegramGatewayFakes; gateway: GatewayProcess; origin: string }> {
    fakes = await startTelegramGatewayFakes('operator-row4-');
    const own = join(fakes.home, 'profiles', 'default', 'temp', keySegment(`telegram:group:${group}`));
    mkdirSync(own, { recursive: true });
    writeFileSync(join(own, 'aaa.txt'), `${'a'.repeat(5_000)}\n`);
    writeFileSync(join(fakes.home, 'operator.json'), JSON.stringify({ allowlists: { telegram: { chats: [String(group)] } }, sandbox: { fileTimeoutSeconds: seconds }, shutdownGraceSeconds: 2 }));
    gateway = await startTelegramGateway(fakes, [admin], wait);
    return { fakes, gateway, origin: await gateway.ready(wait) };
  }

  function askForTheSearch(fakes: TelegramGatewayFakes, answer: string): void {
    fakes.model.enqueue({ toolCalls: [{ name: 'grep', arguments: { pattern: '(a+)+b' } }] }, { text: answer });
    fakes.telegram.pushUpdate(fakes.telegram.textMessage({ chatId: group, text: `@${fakes.telegram.bot.username} find it`, from: stranger }));
  }

  it('keeps /healthz answering while the pattern runs, and stops within its grace on SIGTERM', async () => {
    const { fakes: world, gateway: process, origin } = await start(600);
    askForTheSearch(world, 'never sent');
    // The search runs once a file worker is up for the group (the model asked for the call, and
    // the gateway handed it over); its answer waits for the tool.
    await until(() => workerRunningUnder(process.child.pid!), wait);
    const statuses: number[] = [];
    for (let index = 0; index < 20; index++) statuses.push((await fetch(`${origin}/healthz`)).status);
    expect(statuses).toEqual(Array(20).fill(200));
    // SIGTERM: the turn is given its grace (2 s here), then stopped, and the worker with it; the
    // process exits on its own, long before the test would send SIGKILL.
    const code = await process.stop(20_000);
    expect(code).toBe(0);
    gateway = undefined;
  });

  it('stops the search at its time limit and tells the model; the gateway goes on', async () => {
    const { fakes: world, gateway: process } = await start(2);
    askForTheSearch(world, 'The search gave up.');
    await findBotMessage(world.telegram, process, group, 'The search gave up.', wait);
    const results = JSON.stringify(world.model.requests.at(-1)!.body.messages);
    expect(results).toContain('the search was stopped: it ran for more than 2 s and was stopped');
    world.model.enqueue({ text: 'Still here.' });
    world.telegram.pushUpdate(world.telegram.textMessage({ chatId: group, text: `@${world.telegram.bot.username} still there?`, from: stranger }));
    await findBotMessage(world.telegram, process, group, 'Still here.', wait);
  });
});
