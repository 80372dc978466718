/**
 * The Worker as a developer runs it: `npx wrangler dev` in a process of its own (wrangler, then
 * workerd with the Durable Objects), driven only through the fakes, as Telegram and the model
 * provider would drive it. The fake Telegram posts the update to the webhook with the secret
 * header; the conversation's object answers from its alarm through the fake model; the reply
 * arrives at the fake Bot API once, and a redelivered update is not answered again.
 *
 * The secrets go in an env file in the test's temp folder (`--env-file`, which wrangler 4.86
 * supports and which also keeps a developer's own `.dev.vars` or `.env` out), so they never appear
 * on a command line `ps` shows; the plain settings go as `--var`, as `[vars]` would in production.
 * wrangler runs as its own process group, so stopping it reaches every process it started.
 */
import type { Update } from 'grammy/types';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeModelServer, type FakeModelServer } from '../fakes/fake-model-server.ts';
import { startFakeTelegramServer, type FakeTelegram } from '../fakes/fake-telegram-server.ts';
import { freePort } from '../helpers/free-port.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
/** The person talking to the bot: an admin through OPERATOR_ADMINS, so no pairing code is asked. */
const chatId = 4242;
const secret = 'wrangler-dev-webhook-secret';
/** wrangler's start (bundling, workerd) takes a few seconds here; more on a busy machine. */
const startTimeoutMs = 45_000;

let model: FakeModelServer;
let telegram: FakeTelegram;
let folder: string;
let worker: WranglerDev;

describe('the Worker under `wrangler dev`, end to end through the fakes', () => {
  beforeAll(async () => {
    [model, telegram] = await Promise.all([startFakeModelServer(), startFakeTelegramServer()]);
    folder = mkdtempSync(join(tmpdir(), 'operator-wrangler-dev-'));
    const envFile = join(folder, 'worker.env');
    writeFileSync(envFile, `TELEGRAM_BOT_TOKEN=${telegram.token}\nTELEGRAM_WEBHOOK_SECRET=${secret}\nANTHROPIC_API_KEY=sk-ant-wrangler-dev\n`, { mode: 0o600 });
    worker = await startWranglerDev({
      folder,
      envFile,
      vars: {
        TELEGRAM_API_ROOT: telegram.apiRoot,
        ANTHROPIC_BASE_URL: model.anthropicBaseURL,
        OPERATOR_MODEL: 'claude-sonnet-4-6',
        OPERATOR_ADMINS: `telegram:${chatId}`,
      },
    });
    // As the Node gateway does at start: the webhook registered with the Bot API, with its secret.
    const registered = await fetch(`${telegram.apiRoot}/bot${telegram.token}/setWebhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: `${worker.origin}/webhooks/telegram`, secret_token: secret }),
    });
    expect(registered.status).toBe(200);
  }, startTimeoutMs + 10_000);

  afterAll(async () => {
    await worker?.stop();
    await Promise.all([telegram?.close(), model?.close()]);
    if (folder) rmSync(folder, { recursive: true, force: true });
  }, 30_000);

  /** The first message, kept to be delivered again. */
  let firstUpdate: Update;

  it('answers a message through the fake model, and the reply reaches the fake Bot API once', async () => {
    model.enqueue({ text: 'first answer' }, { text: 'second answer' });
    firstUpdate = telegram.textMessage({ chatId, text: 'first question' });
    expect(await telegram.postWebhook(firstUpdate)).toBe(200);
    await telegram.waitFor((fake) => fake.messages(chatId).some((message) => message.text === 'first answer'), 20_000);
    expect(telegram.messages(chatId).map((message) => message.text)).toEqual(['first answer']);
    expect(model.requests).toHaveLength(1);
  }, 30_000);

  it('takes a redelivered update once: no second turn, no second reply', async () => {
    expect(await telegram.postWebhook(firstUpdate)).toBe(200);
    // A message after the redelivery: the object answers its messages in order, so once this one
    // is answered, a turn for the redelivery would have run before it (or with it, in one batch).
    expect(await telegram.postWebhook(telegram.textMessage({ chatId, text: 'second question' }))).toBe(200);
    await telegram.waitFor((fake) => fake.messages(chatId).some((message) => message.text === 'second answer'), 20_000);
    expect(telegram.messages(chatId).map((message) => message.text)).toEqual(['first answer', 'second answer']);
    expect(model.requests).toHaveLength(2);
    // The second turn's request holds the first question once (the history), not twice (a batch).
    expect(model.requests[1]!.rawBody.split('first question')).toHaveLength(2);
  }, 30_000);

  it('refuses an update without the right secret (401) and answers nothing for it', async () => {
    const stranger = telegram.textMessage({ chatId, text: 'forged question' });
    expect(await telegram.postWebhook(stranger, { secret: 'not-the-secret' })).toBe(401);
    expect(await telegram.postWebhook(stranger, { secret: null })).toBe(401);
    expect(model.requests.every((request) => !request.rawBody.includes('forged question'))).toBe(true);
  }, 30_000);

  it('stops with its whole process group, leaving no workerd behind', async () => {
    const members = worker.groupMembers();
    expect(members.some((member) => member.command === 'workerd')).toBe(true);
    await worker.stop();
    expect(worker.groupMembers()).toEqual([]);
  }, 30_000);
});

/** A `wrangler dev` process group. */
interface WranglerDev {
  readonly origin: string;
  /** The processes of its group still alive (zombies, already dead, left out). */
  groupMembers(): { pid: number; command: string }[];
  /** SIGTERM to the group, SIGKILL to what is left after 10 s; resolves once none is alive. */
  stop(): Promise<void>;
}

/** Spawns `npx wrangler dev` on a free port and resolves once `/healthz` answers 200. */
async function startWranglerDev(options: { folder: string; envFile: string; vars: Record<string, string> }): Promise<WranglerDev> {
  const port = await freePort();
  const vars = Object.entries(options.vars).flatMap(([name, value]) => ['--var', `${name}:${value}`]);
  const args = ['wrangler', 'dev', '--ip', '127.0.0.1', '--port', String(port), '--persist-to', join(options.folder, 'state'), '--env-file', options.envFile, ...vars];
  const child = spawn('npx', args, {
    cwd: root,
    // Of the runner's environment only PATH: no Cloudflare credentials or settings of the developer.
    // HOME in the temp folder keeps wrangler's config, logs and dev registry out of the real one.
    env: { PATH: process.env.PATH ?? '', HOME: options.folder, WRANGLER_SEND_METRICS: 'false', CLOUDFLARE_CF_FETCH_ENABLED: 'false', NO_COLOR: '1', npm_config_update_notifier: 'false' },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const group = child.pid!;
  const worker: WranglerDev = {
    origin: `http://127.0.0.1:${port}`,
    groupMembers: () => livingMembers(group),
    async stop() {
      if (livingMembers(group).length === 0) return;
      signalGroup(group, 'SIGTERM');
      const deadline = Date.now() + 10_000;
      while (livingMembers(group).length > 0 && Date.now() < deadline) await sleep(50);
      if (livingMembers(group).length > 0) signalGroup(group, 'SIGKILL');
      while (livingMembers(group).length > 0) await sleep(50);
    },
  };
  try {
    await healthy(worker.origin, child, () => output);
  } catch (error) {
    await worker.stop();
    throw error;
  }
  return worker;
}

/** Polls `/healthz` until it answers 200; fails at once, with wrangler's output, if it exits first. */
async function healthy(origin: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + startTimeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`wrangler dev exited (${child.exitCode ?? child.signalCode}) before /healthz answered:\n${output()}`);
    const status = await fetch(`${origin}/healthz`).then(
      async (response) => {
        await response.arrayBuffer();
        return response.status;
      },
      () => 0,
    );
    if (status === 200) return;
    await sleep(100);
  }
  throw new Error(`wrangler dev: /healthz did not answer 200 within ${startTimeoutMs} ms:\n${output()}`);
}

/** The living processes of process group `group`, from /proc (a zombie has exited and is left out). */
function livingMembers(group: number): { pid: number; command: string }[] {
  const members: { pid: number; command: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // `pid (comm) state ppid pgrp ...`; comm may hold spaces and parentheses, so split after the last `)`.
    const command = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(pgrp) === group && state !== 'Z') members.push({ pid: Number(entry), command });
  }
  return members;
}

function signalGroup(group: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-group, signal);
  } catch {
    // the group is gone already
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
