/**
 * Seats never rise, through the real gateway process (Telegram long polling), the fake model and
 * the fake Bot API: everything a turn makes or that runs a turn again keeps the seat it came from,
 * tried from a group member (no grants), an admin in the group (granted `agents` there only) and the
 * owner's direct messages. The carriers: a scheduled job (also aimed at the admin's direct
 * messages), a pipeline run (also after a restart, and one a job starts in the admin's direct
 * messages from a group where the admin has `shell` only), a subagent, a skill command, a retry
 * after a failed model call, and a message answered after the gateway was killed in its turn.
 *
 * Mutation checks (run by hand, results here): with a job's kept seat left out of its turn, the job
 * set in the group offered 22 tools in the admin's direct messages and the first test failed; with
 * a scheduled pipeline given the owner's seat instead of the job's, its draft step was offered
 * `apply_patch` and the job-pipeline test failed; with a pipeline's tool step run whatever its seat,
 * the group admin's run published and the restart test failed. The skill command, retry, replay and
 * subagent carriers took their sender's seat before seats were kept (no mutation of the seat code
 * here reaches them); these tests hold them to it.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keySegment } from '../../src/gateway/dedupe.ts';
import type { RecordedRequest, ReplySpec } from '../fakes/fake-model-server.ts';
import { startGateway, type GatewayProcess } from '../helpers/gateway-process.ts';
import { startTelegramGatewayFakes, type TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

const admin = 1001;
const ada = { id: admin, first_name: 'Ada' };
const member = { id: 3003, first_name: 'Mallory' };
const group = -100717;
/** A second group, where the admin is granted `shell` (and nothing else). */
const shellGroup = -100718;
/**
 * Where the member writes when a test has all three seats at once: a conversation of their own
 * (turns in one conversation wait for each other, so the member's and the admin's would take
 * turns in `group`). The member has no grant there either.
 */
const apart = shellGroup;
const wait = 20_000;
/** A test that restarts the gateway, or waits for a job and then its pipeline, takes longer than one turn. */
const longTimeout = 90_000;
/** What no seat without a grant for it is offered. */
const machineTools = ['shell', 'write_file', 'edit_file', 'apply_patch', 'browser', 'web_fetch', 'spawn_agent', 'code', 'run_pipeline'];
/** The admin in the group: granted `agents` there, nothing else. */
const adminInGroup = ['spawn_agent', 'send_input', 'wait', 'close_agent', 'add_references', 'search_references'];

const offered = (request: RecordedRequest): string[] => ((request.body.tools ?? []) as { name: string }[]).map((tool) => tool.name).sort();
const lastMessage = (request: RecordedRequest) => JSON.stringify(request.body.messages.at(-1));
const everything = (request: RecordedRequest) => JSON.stringify(request.body.messages);

describe('seats never rise, through the gateway', () => {
  let fakes: TelegramGatewayFakes;
  let gateway: GatewayProcess;
  let workspace: string;
  /** Replies by marker: the first rule whose marker the request's last message holds answers. */
  const rules: { marker: string; reply: (request: RecordedRequest) => ReplySpec }[] = [{ marker: 'Scheduled job', reply: () => ({ text: 'Scheduled.' }) }];

  const start = async () => {
    gateway = await startGateway({ home: fakes.home, env: fakes.env([admin]), cwd: workspace }, wait);
  };

  beforeAll(async () => {
    workspace = mkdtempSync(join(tmpdir(), 'operator-seat-carriers-ws-'));
    fakes = await startTelegramGatewayFakes('operator-seat-carriers-');
    mkdirSync(join(fakes.home, 'pipelines'), { recursive: true });
    writeFileSync(join(fakes.home, 'pipelines', 'release.dot'), readFileSync(join(import.meta.dirname, '../pipelines/fixtures/release-gate.dot'), 'utf8'));
    writeFileSync(
      join(fakes.home, 'operator.json'),
      JSON.stringify({
        allowlists: { telegram: { chats: [String(group), String(shellGroup)] } },
        groups: { [`telegram:${group}`]: { requireMention: false }, [`telegram:${shellGroup}`]: { requireMention: false } },
        // This file is about the seats a job, run or child keeps; in these groups several people
        // talk, which taints every turn (taint-e2e.test.ts shows what that asks).
        taint: { mode: 'off' },
        tools: {
          grants: [
            { tools: ['agents'], people: [`telegram:${admin}`], chats: [`telegram:${group}`], scope: 'group' },
            { tools: ['shell'], people: [`telegram:${admin}`], chats: [`telegram:${shellGroup}`], scope: 'group' },
          ],
        },
      }),
    );
    fakes.model.setDefault((request) => {
      const last = lastMessage(request);
      const rule = rules.find((entry) => last.includes(entry.marker));
      if (rule) return rule.reply(request);
      // A pipeline's draft step, and anything else: a plain answer.
      return { text: everything(request).includes('Draft the notes') ? 'Draft: the notes' : 'ok' };
    });
    await start();
    // The admin has talked in direct messages, so a job may be aimed there.
    await say(admin, ada, 'hello');
  });

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
    rmSync(workspace, { recursive: true, force: true });
  });

  /** Sends `text` as `from` in `chatId`; resolves once the bot's message containing `expected` (default "ok") is there. */
  async function say(chatId: number, from: { id: number; first_name: string }, text: string, expected = 'ok'): Promise<void> {
    const before = fakes.telegram.messages(chatId).length;
    fakes.telegram.pushUpdate(fakes.telegram.textMessage({ chatId, text, from }));
    await messageAfter(chatId, before, expected);
  }

  /** The first bot message in `chatId` after the first `before` that contains `contains`. */
  async function messageAfter(chatId: number, before: number, contains: string) {
    return fakes.telegram.waitFor((fake) => fake.messages(chatId).slice(before).find((message) => message.text.includes(contains)), wait).catch((error: unknown) => {
      throw new Error(`no "${contains}" in ${chatId}: ${String(error)}\n${JSON.stringify(fakes.telegram.messages(chatId).slice(before).map((message) => message.text))}\n${gateway.output.all()}`);
    });
  }

  /** Resolves once the workspace's published.txt (the pipeline's tool step) says `goal`. */
  const published = (goal: string) => fakes.telegram.waitFor(() => existsSync(join(workspace, 'published.txt')) && readFileSync(join(workspace, 'published.txt'), 'utf8') === `${goal}\n`, wait);

  /** The model requests whose last message holds `marker`. */
  const requestsWith = (marker: string) => fakes.model.requests.filter((request) => lastMessage(request).includes(marker));
  const expectMember = (tools: string[]) => {
    for (const name of [...machineTools, ...adminInGroup]) expect(tools).not.toContain(name);
    expect(tools).toContain('read_file');
  };
  const expectAdminInGroup = (tools: string[]) => {
    for (const name of adminInGroup) expect(tools).toContain(name);
    for (const name of machineTools.filter((tool) => !adminInGroup.includes(tool))) expect(tools).not.toContain(name);
  };
  const expectOwner = (tools: string[]) => {
    for (const name of ['shell', 'write_file', 'apply_patch', 'spawn_agent', 'read_file']) expect(tools).toContain(name);
  };

  it("runs a job with the seat of the turn that set it, wherever it delivers", async () => {
    const schedule = (marker: string, deliver?: string): ReplySpec => ({ toolCalls: [{ name: 'schedule', arguments: { action: 'create', prompt: `${marker}-RUN`, delay_seconds: 1, ...(deliver && { deliver }) } }] });
    // The jobs' own turns first: their prompts hold the markers of the turns that set them.
    for (const marker of ['JOB-MEMBER-RUN', 'JOB-ADMIN-RUN', 'JOB-OWNER-RUN']) rules.push({ marker, reply: () => ({ text: `${marker} answered` }) });
    rules.push(
      { marker: 'JOB-MEMBER', reply: () => schedule('JOB-MEMBER') },
      { marker: 'JOB-ADMIN', reply: () => schedule('JOB-ADMIN', `telegram:${admin}`) },
      { marker: 'JOB-OWNER', reply: () => schedule('JOB-OWNER') },
    );
    // Three conversations, so the three jobs are set and run side by side (see `apart`).
    await Promise.all([
      say(apart, member, 'JOB-MEMBER: remind us', 'Scheduled.').then(() => messageAfter(apart, 0, 'JOB-MEMBER-RUN answered')),
      say(group, ada, 'JOB-ADMIN: remind me in my DMs', 'Scheduled.').then(() => messageAfter(admin, 0, 'JOB-ADMIN-RUN answered')),
      say(admin, ada, 'JOB-OWNER: remind me', 'Scheduled.').then(() => messageAfter(admin, 0, 'JOB-OWNER-RUN answered')),
    ]);

    expectMember(offered(requestsWith('JOB-MEMBER-RUN')[0]!));
    // Set in the group, run in the admin's direct messages: the group's seat, not the owner's.
    expect(offered(requestsWith('JOB-ADMIN-RUN')[0]!)).toEqual(offered(requestsWith('JOB-ADMIN: remind')[0]!));
    expectAdminInGroup(offered(requestsWith('JOB-ADMIN-RUN')[0]!));
    expectOwner(offered(requestsWith('JOB-OWNER-RUN')[0]!));
  });

  it('runs a skill command with the seat of the person who typed it', async () => {
    for (const marker of ['SKILL-MEMBER', 'SKILL-ADMIN', 'SKILL-OWNER']) rules.push({ marker, reply: () => ({ text: `${marker} summarized` }) });
    await say(group, member, '/summarize SKILL-MEMBER', 'SKILL-MEMBER summarized');
    await say(group, ada, '/summarize SKILL-ADMIN', 'SKILL-ADMIN summarized');
    await say(admin, ada, '/summarize SKILL-OWNER', 'SKILL-OWNER summarized');
    for (const marker of ['SKILL-MEMBER', 'SKILL-ADMIN', 'SKILL-OWNER']) expect(lastMessage(requestsWith(marker)[0]!)).toContain('Run the skill \\"summarize\\"');
    expectMember(offered(requestsWith('SKILL-MEMBER')[0]!));
    expectAdminInGroup(offered(requestsWith('SKILL-ADMIN')[0]!));
    expectOwner(offered(requestsWith('SKILL-OWNER')[0]!));
  });

  it('retries a failed model call with the same seat', async () => {
    for (const marker of ['RETRY-MEMBER', 'RETRY-ADMIN', 'RETRY-OWNER']) {
      let calls = 0;
      rules.push({ marker, reply: () => (++calls === 1 ? { error: { status: 500, message: 'overloaded for a moment' } } : { text: `${marker} answered` }) });
    }
    // Side by side, in three conversations: each waits out its own retry delay.
    await Promise.all([say(apart, member, 'RETRY-MEMBER', 'RETRY-MEMBER answered'), say(group, ada, 'RETRY-ADMIN', 'RETRY-ADMIN answered'), say(admin, ada, 'RETRY-OWNER', 'RETRY-OWNER answered')]);
    for (const [marker, check] of [['RETRY-MEMBER', expectMember], ['RETRY-ADMIN', expectAdminInGroup], ['RETRY-OWNER', expectOwner]] as const) {
      const [failed, retried] = requestsWith(marker);
      expect(retried, `${marker} was retried`).toBeDefined();
      expect(offered(retried!)).toEqual(offered(failed!));
      check(offered(retried!));
    }
  });

  it("gives a subagent no more than the turn that started it", async () => {
    // The parent spawns a child and waits for it; the child answers. Later steps' messages hold
    // the earlier markers, so the rules go from the last step to the first.
    rules.push(
      { marker: 'child finished', reply: () => ({ text: 'The helper is done.' }) },
      { marker: 'spawned for task', reply: (request) => ({ toolCalls: [{ name: 'wait', arguments: { agent_id: /Subagent '([0-9a-f]{4})' spawned/.exec(lastMessage(request))![1]! } }] }) },
    );
    for (const marker of ['AGENT-ADMIN', 'AGENT-OWNER']) rules.push({ marker: `${marker}-CHILD`, reply: () => ({ text: `${marker} child finished` }) });
    for (const marker of ['AGENT-ADMIN', 'AGENT-OWNER']) rules.push({ marker, reply: () => ({ toolCalls: [{ name: 'spawn_agent', arguments: { task: `${marker}-CHILD look around` } }] }) });
    await say(group, ada, 'AGENT-ADMIN', 'The helper is done.');
    await say(admin, ada, 'AGENT-OWNER', 'The helper is done.');
    const adminChild = offered(requestsWith('AGENT-ADMIN-CHILD')[0]!);
    for (const name of adminChild) expect(offered(requestsWith('AGENT-ADMIN')[0]!)).toContain(name);
    for (const name of ['shell', 'write_file', 'apply_patch']) expect(adminChild).not.toContain(name);
    expect(offered(requestsWith('AGENT-OWNER-CHILD')[0]!)).toContain('shell');
    // A member without the grant is not offered subagents at all.
    expectMember(offered(requestsWith('SKILL-MEMBER')[0]!));
  });

  it('runs a pipeline with the seat of who started it, also after a restart; its tool step needs that seat to have shell', async () => {
    const { telegram } = fakes;
    const runFrom = async (chatId: number, goal: string) => {
      const before = telegram.messages(chatId).length;
      telegram.pushUpdate(telegram.textMessage({ chatId, text: `/run release ${goal}`, from: ada }));
      const started = await messageAfter(chatId, before, 'Started run ');
      const id = /Started run ([0-9a-f]{6})/.exec(started.text)![1]!;
      return { id, question: await messageAfter(chatId, before, `[${id}] Publish this draft?`) };
    };
    const groupRun = await runFrom(group, 'PIPE-GROUP');
    const ownerRun = await runFrom(admin, 'PIPE-OWNER');
    const draftOf = (goal: string) => fakes.model.requests.find((request) => everything(request).includes(`Draft the notes: ${goal}`))!;
    expectAdminInGroup(offered(draftOf('PIPE-GROUP')));
    expectOwner(offered(draftOf('PIPE-OWNER')));

    // Both wait at their gate while the gateway restarts; the kept seat comes back with the run.
    await gateway.stop();
    const inGroup = telegram.messages(group).length;
    const inDm = telegram.messages(admin).length;
    await start();
    const again = await messageAfter(group, inGroup, `[${groupRun.id}] Publish this draft?`);
    telegram.pushUpdate(telegram.callbackQuery({ chatId: group, chatType: 'supergroup', from: ada, data: `gate:${groupRun.id}:0`, messageId: again.messageId }));
    const ended = await messageAfter(group, inGroup, `Run ${groupRun.id} of release failed`);
    expect(ended.text).toContain("this run's seat has no shell tool");
    expect(existsSync(join(workspace, 'published.txt'))).toBe(false);
    expect(existsSync(join(fakes.home, 'profiles', 'default', 'temp', keySegment(`telegram:group:${group}`), 'published.txt'))).toBe(false);

    const ownerAgain = await messageAfter(admin, inDm, `[${ownerRun.id}] Publish this draft?`);
    telegram.pushUpdate(telegram.callbackQuery({ chatId: admin, from: ada, data: `gate:${ownerRun.id}:0`, messageId: ownerAgain.messageId }));
    await published('PIPE-OWNER');
  }, longTimeout);

  it("starts a job's pipeline with the seat of the turn that set the job, in the admin's direct messages", async () => {
    // Set where the admin has `shell` only: the run in their direct messages gets that, not the owner's every tool.
    rules.unshift({ marker: 'PIPE-JOB-SET', reply: () => ({ toolCalls: [{ name: 'schedule', arguments: { action: 'create', prompt: 'PIPE-JOB', delay_seconds: 1, pipeline: 'release', deliver: `telegram:${admin}` } }] }) });
    const before = fakes.telegram.messages(admin).length;
    await say(shellGroup, ada, 'PIPE-JOB-SET: publish the notes from my DMs', 'Scheduled.');
    const question = await messageAfter(admin, before, 'Publish this draft?');
    const draft = offered(fakes.model.requests.find((request) => everything(request).includes('Draft the notes: PIPE-JOB'))!);
    // The run's agent has no chat tools (schedule, send_file): of the rest, only what the group turn had.
    for (const name of draft) expect(offered(requestsWith('PIPE-JOB-SET')[0]!)).toContain(name);
    expect(draft).toContain('shell');
    for (const name of ['write_file', 'apply_patch', 'browser', 'spawn_agent']) expect(draft).not.toContain(name);
    const id = /^\[([0-9a-f]{6})\]/.exec(question.text)![1]!;
    fakes.telegram.pushUpdate(fakes.telegram.callbackQuery({ chatId: admin, from: ada, data: `gate:${id}:0`, messageId: question.messageId }));
    // Its seat has `shell`: the tool step runs, in the workspace the group's grant opens.
    await published('PIPE-JOB');
  }, longTimeout);

  it("answers a message the gateway was killed in with the seat of its sender in its conversation", async () => {
    let hanging = true;
    for (const marker of ['REPLAY-MEMBER', 'REPLAY-ADMIN', 'REPLAY-OWNER']) rules.push({ marker, reply: () => (hanging ? { hangMs: 60_000, text: 'late' } : { text: `${marker} answered` }) });
    const { telegram } = fakes;
    telegram.pushUpdate(telegram.textMessage({ chatId: group, text: 'REPLAY-MEMBER', from: member }));
    telegram.pushUpdate(telegram.textMessage({ chatId: group, text: 'REPLAY-ADMIN', from: ada }));
    telegram.pushUpdate(telegram.textMessage({ chatId: admin, text: 'REPLAY-OWNER', from: ada }));
    // The member's turn and the owner's are in their model calls; the admin's waits behind the member's.
    await telegram.waitFor(() => requestsWith('REPLAY-MEMBER').length === 1 && requestsWith('REPLAY-OWNER').length === 1, wait);
    await gateway.kill();
    hanging = false;
    await start();
    await messageAfter(group, 0, 'REPLAY-MEMBER answered');
    await messageAfter(group, 0, 'REPLAY-ADMIN answered');
    await messageAfter(admin, 0, 'REPLAY-OWNER answered');
    expectMember(offered(requestsWith('REPLAY-MEMBER').at(-1)!));
    expectAdminInGroup(offered(requestsWith('REPLAY-ADMIN').at(-1)!));
    expectOwner(offered(requestsWith('REPLAY-OWNER').at(-1)!));
    expect(offered(requestsWith('REPLAY-MEMBER').at(-1)!)).toEqual(offered(requestsWith('REPLAY-MEMBER')[0]!));
  }, longTimeout);
});
