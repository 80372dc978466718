/**
 * Subagents through the real gateway process, the fake model server and the fake Bot API: the
 * owner's agent splits work between children whose progress is one message edited in place,
 * whose file changes `/undo turn` takes back with the parent's, and whose spend `/status` shows;
 * `/stop` stops them; in a group, a member without the `agents` grant is offered no subagent
 * tools, one granted only `agents` gets them without the workspace's file tools; a stranger gets
 * the pairing answer and never reaches the model.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest, ReplySpec } from '../fakes/fake-model-server.ts';
import { startGateway, type GatewayProcess } from '../helpers/gateway-process.ts';
import { telegramChat } from '../helpers/telegram-chat.ts';
import { startTelegramGatewayFakes, type TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';
import { makeTempDir } from '../tools/tool-harness.ts';
import { approveGroups, telegramGroup } from '../helpers/approved-groups.ts';

const admin = 1001;
const member = { id: 2002, first_name: 'Bea' };
const delegate = { id: 3003, first_name: 'Cy' };
const group = -100777;
/**
 * How long a start, an answer or a change may take: generous, for a machine that runs test files
 * side by side; each wait ends at its event, not at the limit.
 */
const wait = 60_000;

const subagentTools = ['spawn_agent', 'send_input', 'wait', 'close_agent'];

function isChild(request: RecordedRequest): boolean {
  return JSON.stringify(request.body.messages).includes('you are its subagent');
}

/** The ids of the children spawned in the conversation so far (earlier turns' too), oldest first. */
function spawnedIds(request: RecordedRequest): string[] {
  return [...JSON.stringify(request.body.messages).matchAll(/Subagent '([0-9a-f]{4})' spawned/g)].map((match) => match[1]!);
}

describe('subagents through the gateway', { timeout: 3 * wait }, () => {
  let fakes: TelegramGatewayFakes;
  let gateway: GatewayProcess;
  let chat: ReturnType<typeof telegramChat>;
  let workspace: string;

  /** Children are answered by `child`, the parent by `parent` (in order; functions see the request). */
  const script = (parent: (ReplySpec | ((request: RecordedRequest) => ReplySpec))[], child: (request: RecordedRequest) => ReplySpec) => {
    const queue = [...parent];
    fakes.model.setDefault((request) => {
      if (isChild(request)) return child(request);
      const next = queue.shift() ?? { text: 'ok' };
      return typeof next === 'function' ? next(request) : next;
    });
  };

  beforeAll(async () => {
    workspace = await makeTempDir();
    fakes = await startTelegramGatewayFakes('operator-subagents-e2e-');
    writeFileSync(
      join(fakes.home, 'operator.json'),
      JSON.stringify({ groups: { [`telegram:${group}`]: { requireMention: false } }, tools: { grants: [{ tools: ['agents'], people: [`telegram:${delegate.id}`] }] } }),
    );
    // The group(s) an admin approved (groupPolicy approval is the default; this test is about something else).
    await approveGroups(fakes.home, [telegramGroup(group)]);
    gateway = await startGateway({ home: fakes.home, env: fakes.env([admin]), cwd: workspace }, wait);
    chat = telegramChat({ fakes, gateway, admin, group, waitMs: wait });
  }, 2 * wait);
  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  it("splits the owner's work between two children: progress edited in place, their changes undone with the turn, their spend in /status", async () => {
    const { telegram } = fakes;
    script(
      [
        {
          toolCalls: [
            { id: 's1', name: 'spawn_agent', arguments: { task: 'Write alpha.md' } },
            { id: 's2', name: 'spawn_agent', arguments: { task: 'Write beta.md' } },
          ],
        },
        (request) => ({ toolCalls: spawnedIds(request).map((id, index) => ({ id: `w${index}`, name: 'wait', arguments: { agent_id: id } })) }),
        { text: 'Both files are written.' },
      ],
      (request) => {
        const text = JSON.stringify(request.body.messages);
        if (text.includes('tool_result')) return { text: 'written', usage: { input: 500, output: 20 } };
        const name = text.includes('alpha') ? 'alpha.md' : 'beta.md';
        return { toolCalls: [{ name: 'write_file', arguments: { path: name, content: `${name}\n` } }], usage: { input: 400, output: 30 } };
      },
    );
    let before = telegram.messages(admin).length;
    chat.dm('write the two files in parallel');
    const [progress, reply] = await chat.messagesAfter(admin, before, 2);
    // The reply may still be its streamed preview when it first shows: its final text follows by an edit.
    await telegram.waitFor((fake) => fake.messages(admin).find((message) => message.messageId === reply!.messageId)!.text === 'Both files are written.', wait);
    expect(readFileSync(join(workspace, 'alpha.md'), 'utf8')).toBe('alpha.md\n');
    expect(readFileSync(join(workspace, 'beta.md'), 'utf8')).toBe('beta.md\n');
    // One message for the children, edited to its last state once they were done.
    await telegram.waitFor((fake) => fake.messages(admin).find((message) => message.messageId === progress!.messageId)!.text.includes('(0 working)'), wait);
    const final = telegram.messages(admin).find((message) => message.messageId === progress!.messageId)!;
    expect(final.text).toMatch(/^Subagents \(0 working\):\n✅ [0-9a-f]{4} · Write alpha\.md — done, 1 tool call\n✅ [0-9a-f]{4} · Write beta\.md — done, 1 tool call$/);
    expect(final.edits).toBeGreaterThanOrEqual(1);
    expect(telegram.messages(admin).slice(before)).toHaveLength(2);

    before = telegram.messages(admin).length;
    chat.dm('/status');
    const [status] = await chat.messagesAfter(admin, before, 1);
    expect(status!.text).toMatch(/Subagents: 2 started, 0 working; 1,800 tokens in, 100 out, \$\d+\.\d{4} /);
    expect(status!.text).toMatch(/[0-9a-f]{4} done: Write alpha\.md \(1 tool call, (<1s|\d+s|\d+m \d\ds), \$\d+\.\d{4};/);

    // The children's changes belong to the parent's turn.
    before = telegram.messages(admin).length;
    chat.dm('/undo turn');
    const [undone] = await chat.messagesAfter(admin, before, 1);
    expect(undone!.text).toContain('alpha.md');
    expect(undone!.text).toContain('beta.md');
    expect(existsSync(join(workspace, 'alpha.md'))).toBe(false);
    expect(existsSync(join(workspace, 'beta.md'))).toBe(false);
  });

  it('/stop stops the children with the answer', async () => {
    const { telegram, model } = fakes;
    // The parent waits for the child it spawned in this turn: the last id, since the history holds
    // the first test's children too (waiting for one of those, done long ago, ends the turn at once).
    script(
      [{ toolCalls: [{ id: 's1', name: 'spawn_agent', arguments: { task: 'Think for a long time' } }] }, (request) => ({ toolCalls: [{ id: 'w', name: 'wait', arguments: { agent_id: spawnedIds(request).at(-1)!, timeout_seconds: 60 } }] })],
      () => ({ text: 'too late', hangMs: 60_000 }),
    );
    const requests = model.requests.length;
    let before = telegram.messages(admin).length;
    chat.dm('think hard');
    const seen = () => `\nmodel requests: ${JSON.stringify(model.requests.slice(requests).map((request) => (isChild(request) ? 'child' : `parent (children so far: ${spawnedIds(request).join(', ')})`)))}\nmessages: ${JSON.stringify(telegram.messages(admin).slice(before).map((message) => message.text))}\n${gateway.output.all()}`;
    await telegram.waitFor(() => model.requests.slice(requests).some(isChild), wait).catch((error: unknown) => {
      throw new Error(`no child asked the model: ${String(error)}${seen()}`);
    });
    chat.dm('/stop');
    // The progress line, the stopped turn's "Stopped." and the command's answer, in either order.
    await telegram.waitFor((fake) => fake.messages(admin).slice(before).some((message) => message.text === 'Stopping (and 1 subagent).'), wait).catch((error: unknown) => {
      throw new Error(`no answer to /stop: ${String(error)}${seen()}`);
    });
    // Stopped by /stop while it waited, not ended by an answer of its own.
    expect(model.requests.slice(requests).filter((request) => !isChild(request))).toHaveLength(2);
    before = telegram.messages(admin).length;
    chat.dm('/status');
    const [status] = await chat.messagesAfter(admin, before, 1);
    expect(status!.text).toMatch(/[0-9a-f]{4} stopped: Think for a long time/);
  });

  it('in a group: no subagent tools without the agents grant; with it alone, subagents but no workspace file tools', async () => {
    const { telegram, model } = fakes;
    model.setDefault({ text: 'ok' });
    let before = telegram.messages(group).length;
    chat.inGroup('hello there', member);
    await chat.messagesAfter(group, before, 1);
    for (const tool of subagentTools) expect(chat.lastToolNames()).not.toContain(tool);

    before = telegram.messages(group).length;
    chat.inGroup('hello from Cy', delegate);
    await chat.messagesAfter(group, before, 1);
    const offered = chat.lastToolNames();
    for (const tool of subagentTools) expect(offered).toContain(tool);
    for (const tool of ['write_file', 'edit_file', 'shell', 'browser']) expect(offered).not.toContain(tool);
  });

  it('a stranger gets the pairing answer and never reaches the model', async () => {
    const { telegram, model } = fakes;
    const stranger = 4004;
    const requests = model.requests.length;
    const before = telegram.messages(stranger).length;
    telegram.pushUpdate(telegram.textMessage({ chatId: stranger, text: 'spawn_agent everything', from: { id: stranger, first_name: 'Eve' } }));
    const [reply] = await chat.messagesAfter(stranger, before, 1);
    expect(reply!.text).toMatch(/pair|code/i);
    expect(model.requests.length).toBe(requests);
  });
});
