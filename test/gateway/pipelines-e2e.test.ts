/**
 * Pipelines from the chat, through the real gateway process, the fake model and the fake Bot API:
 * the owner lists and starts one with /run, its progress is one message edited in place, its gate
 * is a row of buttons pressed by the owner (a group member's press is refused), its tool step runs
 * and the run's last answer is said; a run waiting at its gate when the gateway stops, and one
 * whose gateway is killed in the middle of a step, go on after the restart, saying so; the model
 * starts one with run_pipeline; a scheduled job starts one; /runs lists; a member without the shell tools may not start one;
 * /run show is the admin's (a member is refused, a stranger gets the pairing answer); a stranger gets the pairing answer.
 */
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type GatewayProcess } from '../helpers/gateway-process.ts';
import { telegramChat } from '../helpers/telegram-chat.ts';
import { startTelegramGatewayFakes, type TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { approveGroups, telegramGroup } from '../helpers/approved-groups.ts';

const admin = 1001;
const member = { id: 2002, first_name: 'Bea' };
const group = -100999;
const wait = 15_000;

/** A draft, a gate (Publish / Drop) and a tool step that writes published.txt. */
const release = readFileSync(join(import.meta.dirname, '../pipelines/fixtures/release-gate.dot'), 'utf8');

describe('pipelines from the chat', () => {
  let fakes: TelegramGatewayFakes;
  let gateway: GatewayProcess;
  let chat: ReturnType<typeof telegramChat>;
  let workspace: string;

  const start = async () => {
    // The group(s) an admin approved (groupPolicy approval is the default; this test is about something else).
    await approveGroups(fakes.home, [telegramGroup(group)]);
    gateway = await startGateway({ home: fakes.home, env: fakes.env([admin]), cwd: workspace }, wait);
    chat = telegramChat({ fakes, gateway, admin, group, waitMs: wait });
  };

  beforeAll(async () => {
    // Kept for the whole file (the gateway's working directory across its restart).
    workspace = mkdtempSync(join(tmpdir(), 'operator-pipelines-ws-'));
    fakes = await startTelegramGatewayFakes('operator-pipelines-e2e-');
    mkdirSync(join(fakes.home, 'pipelines'), { recursive: true });
    writeFileSync(join(fakes.home, 'pipelines', 'release.dot'), release);
    writeFileSync(join(fakes.home, 'operator.json'), JSON.stringify({ groups: { [`telegram:${group}`]: { requireMention: false } } }));
    // A guardrail that asks before one command: a run's tool step asks in the chat as a turn would.
    mkdirSync(join(fakes.home, 'guardrails'), { recursive: true });
    writeFileSync(join(fakes.home, 'guardrails', 'guarded.yaml'), "rules:\n  - tool: shell\n    arguments: { command: 'GUARDED' }\n    decision: ask\n    reason: guarded steps need a yes\n");
    fakes.model.setDefault({ text: 'Draft: notes for 1.2' });
    await start();
  });
  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
    rmSync(workspace, { recursive: true, force: true });
  });

  /** The first message after `before` in `chatId` whose text starts with `prefix`. */
  const messageStarting = async (chatId: number, before: number, prefix: string) => {
    await fakes.telegram.waitFor((fake) => fake.messages(chatId).slice(before).some((message) => message.text.startsWith(prefix)), wait).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${JSON.stringify(fakes.telegram.messages(chatId).slice(before).map((message) => message.text))}\n${gateway.output.all()}`);
    });
    return fakes.telegram.messages(chatId).slice(before).find((message) => message.text.startsWith(prefix))!;
  };

  it("lists, starts, shows progress, asks with buttons, refuses a stranger's press, runs the tool step and says the last answer", async () => {
    const { telegram } = fakes;
    let before = telegram.messages(admin).length;
    chat.dm('/run');
    expect((await chat.messagesAfter(admin, before, 1))[0]!.text).toBe('Pipelines: coder, release, task. Start one with /run NAME GOAL.');

    before = telegram.messages(admin).length;
    chat.dm('/run release Publish the 1.2 notes');
    const started = await messageStarting(admin, before, 'Started run ');
    const id = /Started run ([0-9a-f]{6}) of release: Publish the 1\.2 notes\./.exec(started.text)?.[1];
    expect(id, started.text).toBeDefined();
    const question = await messageStarting(admin, before, `[${id}] Publish this draft?`);
    expect(question.replyMarkup).toMatchObject({ inline_keyboard: [[{ text: 'Publish', callback_data: `gate:${id}:0` }, { text: 'Drop', callback_data: `gate:${id}:1` }]] });

    telegram.pushUpdate(telegram.callbackQuery({ chatId: admin, from: { id: admin, first_name: 'Ada' }, data: `gate:${id}:0`, messageId: question.messageId }));
    const said = await messageStarting(admin, before, 'Draft: notes for 1.2');
    expect(said.text).toBe('Draft: notes for 1.2');
    expect(readFileSync(join(workspace, 'published.txt'), 'utf8')).toBe('Publish the 1.2 notes\n');
    // The question now says what was answered; the progress message shows every step done.
    await telegram.waitFor((fake) => fake.messages(admin).find((message) => message.messageId === question.messageId)!.text.includes('→ Publish (Ada)'), wait);
    const progress = await messageStarting(admin, before, `Pipeline release [${id}]`);
    await telegram.waitFor((fake) => fake.messages(admin).find((message) => message.messageId === progress.messageId)!.text.startsWith(`Pipeline release [${id}] finished`), wait);
    expect(telegram.messages(admin).find((message) => message.messageId === progress.messageId)!.text).toBe(
      [`Pipeline release [${id}] finished`, '✅ start', '✅ draft', '✅ approve', '✅ publish', '✅ done'].join('\n'),
    );

    // The gateway's log has a line per step.
    const log = gateway.output.all();
    for (const line of [`pipeline ${id}: started (release)`, `pipeline ${id}: approve asks: Publish this draft?`, `pipeline ${id}: approve answered: Publish by Ada`, `pipeline ${id}: publish success`, `pipeline ${id}: finished`]) expect(log).toContain(line);

    before = telegram.messages(admin).length;
    chat.dm('/runs');
    expect((await chat.messagesAfter(admin, before, 1))[0]!.text).toContain(`${id} release: finished`);

    // A chat's run has its run folder too, private to the owner.
    const folder = join(fakes.home, 'runs', id!);
    expect(statSync(folder).mode & 0o777).toBe(0o700);
    expect(JSON.parse(readFileSync(join(folder, 'manifest.json'), 'utf8'))).toMatchObject({ id, graph: 'release', goal: 'Publish the 1.2 notes', status: 'finished', nodes: ['start', 'draft', 'approve', 'publish', 'done'] });
    expect(readFileSync(join(folder, 'draft', 'prompt.md'), 'utf8')).toContain('Publish the 1.2 notes');
    expect(readFileSync(join(folder, 'draft', 'response.md'), 'utf8')).toBe('Draft: notes for 1.2');
    expect(JSON.parse(readFileSync(join(folder, 'approve', 'status.json'), 'utf8'))).toMatchObject({ outcome: 'success', attempts: 1 });
  });

  it("asks a guardrail's question about a tool step with the chat's approval buttons, and runs it on a yes", async () => {
    const { telegram } = fakes;
    writeFileSync(join(fakes.home, 'pipelines', 'guarded.dot'), 'digraph guarded {\n  start [shape=Mdiamond]\n  step [type="tool" tool_command="echo GUARDED > guarded.txt"]\n  done [shape=Msquare]\n  start -> step -> done\n}\n');
    try {
      const before = telegram.messages(admin).length;
      chat.dm('/run guarded go');
      const question = await messageStarting(admin, before, 'Approval needed');
      expect(question.text).toContain('guarded steps need a yes');
      expect((question.replyMarkup as { inline_keyboard: { text: string }[][] }).inline_keyboard.flat().map((button) => button.text)).toEqual(['Allow once', 'Deny', 'Allow for this conversation for 1 hour']);
      telegram.pushUpdate(telegram.callbackQuery({ chatId: admin, from: { id: admin, first_name: 'Ada' }, data: 'approve', messageId: question.messageId }));
      await messageStarting(admin, before, 'Pipeline guarded [');
      await telegram.waitFor(() => (existsSync(join(workspace, 'guarded.txt')) ? true : undefined), wait);
      expect(readFileSync(join(workspace, 'guarded.txt'), 'utf8')).toBe('GUARDED\n');
    } finally {
      rmSync(join(fakes.home, 'pipelines', 'guarded.dot'), { force: true });
    }
  });

  it('a run waiting at its gate when the gateway stops goes on after the restart', async () => {
    const { telegram } = fakes;
    let before = telegram.messages(admin).length;
    chat.dm('/run release The 1.3 notes');
    const started = await messageStarting(admin, before, 'Started run ');
    const id = /Started run ([0-9a-f]{6})/.exec(started.text)![1]!;
    await messageStarting(admin, before, `[${id}] Publish this draft?`);
    await gateway.stop();
    before = telegram.messages(admin).length;
    await start();
    await messageStarting(admin, before, `Run ${id} of release was interrupted by a restart at approve: going on (approve runs again).`);
    const again = await messageStarting(admin, before, `[${id}] Publish this draft?`);
    telegram.pushUpdate(telegram.callbackQuery({ chatId: admin, from: { id: admin, first_name: 'Ada' }, data: `gate:${id}:1`, messageId: again.messageId }));
    await messageStarting(admin, before, 'Draft: notes for 1.2');
    expect(readFileSync(join(workspace, 'published.txt'), 'utf8')).toBe('Publish the 1.2 notes\n');
  });

  it('a run whose gateway is killed mid-step goes on after the restart, running that step again', async () => {
    const { telegram, model } = fakes;
    // The draft step's model call hangs: the gateway dies (SIGKILL) in the middle of it.
    let restarted = false;
    let hanging = false;
    model.setDefault((request) => {
      if (!JSON.stringify(request.body.messages).includes('Draft the notes: Killed notes') || restarted) return { text: 'Draft: notes for 1.2' };
      hanging = true;
      return { text: 'never', hangMs: 60_000 };
    });
    let before = telegram.messages(admin).length;
    chat.dm('/run release Killed notes');
    const started = await messageStarting(admin, before, 'Started run ');
    const id = /Started run ([0-9a-f]{6})/.exec(started.text)![1]!;
    for (const until = Date.now() + wait; !hanging; await new Promise((resolve) => setTimeout(resolve, 20))) {
      if (Date.now() > until) throw new Error(`the draft step never called the model\n${gateway.output.all()}`);
    }
    await gateway.kill();
    restarted = true;
    before = telegram.messages(admin).length;
    await start();
    await messageStarting(admin, before, `Run ${id} of release was interrupted by a restart at draft: going on (draft runs again).`);
    const question = await messageStarting(admin, before, `[${id}] Publish this draft?`);
    telegram.pushUpdate(telegram.callbackQuery({ chatId: admin, from: { id: admin, first_name: 'Ada' }, data: `gate:${id}:0`, messageId: question.messageId }));
    await messageStarting(admin, before, 'Draft: notes for 1.2');
    expect(readFileSync(join(workspace, 'published.txt'), 'utf8')).toBe('Killed notes\n');
    model.setDefault({ text: 'Draft: notes for 1.2' });
  });

  it('the model starts a pipeline with run_pipeline in the owner\'s DM; a group member is not offered the tool', async () => {
    const { telegram, model } = fakes;
    let before = telegram.messages(admin).length;
    // The pipeline's own agent steps ask the model too, side by side with the turn: answered by what they are.
    let turnCalls = 0;
    model.setDefault((request) => {
      if (JSON.stringify(request.body.messages).includes('[Pipeline ')) return { text: 'Draft: notes for 1.2' };
      return ++turnCalls === 1 ? { toolCalls: [{ name: 'run_pipeline', arguments: { name: 'release', goal: 'Notes from the model' } }] } : { text: 'I started the release pipeline.' };
    });
    chat.dm('please run the release pipeline for the notes');
    await messageStarting(admin, before, 'I started the release pipeline.');
    const question = await messageStarting(admin, before, '[');
    const id = /^\[([0-9a-f]{6})\] Publish this draft\?/.exec(question.text)?.[1];
    expect(id, question.text).toBeDefined();
    telegram.pushUpdate(telegram.callbackQuery({ chatId: admin, from: { id: admin, first_name: 'Ada' }, data: `gate:${id}:0`, messageId: question.messageId }));
    await telegram.waitFor(() => readFileSync(join(workspace, 'published.txt'), 'utf8') === 'Notes from the model\n', wait);
    model.setDefault({ text: 'Draft: notes for 1.2' });

    before = telegram.messages(group).length;
    chat.inGroup('what can you do?', member);
    await chat.messagesAfter(group, before, 1);
    expect(chat.lastToolNames()).not.toContain('run_pipeline');
  });

  it('a scheduled job starts a pipeline when it fires, with its prompt as the goal', async () => {
    const { telegram, model } = fakes;
    const before = telegram.messages(admin).length;
    model.enqueue({ toolCalls: [{ name: 'schedule', arguments: { action: 'create', prompt: 'Scheduled notes', delay_seconds: 1, pipeline: 'release' } }] }, { text: 'Scheduled.' });
    chat.dm('publish the notes in a second');
    await messageStarting(admin, before, 'Scheduled.');
    const question = await messageStarting(admin, before, '[');
    const id = /^\[([0-9a-f]{6})\] Publish this draft\?/.exec(question.text)?.[1];
    expect(id, question.text).toBeDefined();
    telegram.pushUpdate(telegram.callbackQuery({ chatId: admin, from: { id: admin, first_name: 'Ada' }, data: `gate:${id}:0`, messageId: question.messageId }));
    await telegram.waitFor(() => readFileSync(join(workspace, 'published.txt'), 'utf8') === 'Scheduled notes\n', wait);
    expect(gateway.output.all()).toMatch(new RegExp(`schedule: job [0-9a-z]{8} started pipeline release \\(run ${id}\\)`));
  });

  it('in a group: a member without the shell tools may not start a run, nor press the owner-run gate; a stranger gets the pairing answer', async () => {
    const { telegram, model } = fakes;
    let before = telegram.messages(group).length;
    chat.inGroup('/run release', member);
    expect((await chat.messagesAfter(group, before, 1))[0]!.text).toContain('Running pipelines here needs the shell tools');
    // Nor schedule one.
    model.enqueue({ toolCalls: [{ name: 'schedule', arguments: { action: 'create', prompt: 'x', delay_seconds: 60, pipeline: 'release' } }] }, { text: 'I cannot.' });
    before = telegram.messages(group).length;
    chat.inGroup('schedule the release pipeline', member);
    await chat.messagesAfter(group, before, 1);
    expect(chat.lastRequest()).toContain('scheduling a pipeline needs the shell tools in this conversation');

    // The admin starts one in the group; the member's press is refused, the admin's taken.
    before = telegram.messages(group).length;
    chat.inGroup('/run release Group notes', { id: admin, first_name: 'Ada' });
    const started = await messageStarting(group, before, 'Started run ');
    const id = /Started run ([0-9a-f]{6})/.exec(started.text)![1]!;
    const question = await messageStarting(group, before, `[${id}] Publish this draft?`);
    telegram.pushUpdate(telegram.callbackQuery({ chatId: group, chatType: 'supergroup', from: member, data: `gate:${id}:0`, messageId: question.messageId }));
    await telegram.waitFor((fake) => fake.answeredCallbacks.some((answer) => answer.text === 'Only the person who started this run, or an admin, can answer.'), wait);
    telegram.pushUpdate(telegram.callbackQuery({ chatId: group, chatType: 'supergroup', from: { id: admin, first_name: 'Ada' }, data: `gate:${id}:1`, messageId: question.messageId }));
    await messageStarting(group, before, 'Draft: notes for 1.2');
    expect(existsSync(join(workspace, 'published.txt'))).toBe(true);

    // /run show: the admin sees the run's steps; the member is refused (its prompts may hold what others said).
    before = telegram.messages(group).length;
    chat.inGroup(`/run show ${id}`, member);
    expect((await chat.messagesAfter(group, before, 1))[0]!.text).toBe("Only the owner and admins may see a run's steps (they may hold what other conversations said).");
    before = telegram.messages(group).length;
    chat.inGroup(`/run show ${id}`, { id: admin, first_name: 'Ada' });
    const shown = (await chat.messagesAfter(group, before, 1))[0]!.text;
    expect(shown).toContain(`Run ${id} of release: finished`);
    expect(shown).toMatch(/draft +success +1 attempt/);
    before = telegram.messages(group).length;
    chat.inGroup('/run show ../../etc', { id: admin, first_name: 'Ada' });
    expect((await chat.messagesAfter(group, before, 1))[0]!.text).toContain('is not a run id');

    const stranger = 4004;
    const requests = model.requests.length;
    before = telegram.messages(stranger).length;
    telegram.pushUpdate(telegram.textMessage({ chatId: stranger, text: '/run release', from: { id: stranger, first_name: 'Eve' } }));
    expect((await chat.messagesAfter(stranger, before, 1))[0]!.text).toMatch(/pair|code/i);
    before = telegram.messages(stranger).length;
    telegram.pushUpdate(telegram.textMessage({ chatId: stranger, text: `/run show ${id}`, from: { id: stranger, first_name: 'Eve' } }));
    const strangerSaw = (await chat.messagesAfter(stranger, before, 1))[0]!.text;
    expect(strangerSaw).not.toContain(`Run ${id}`);
    expect(strangerSaw).toMatch(/pair|code/i);
    expect(model.requests.length).toBe(requests);
  });
});
