/**
 * MCP servers through the real gateway process (Telegram long polling, the fake model): the
 * fixture server built with the SDK over stdio (run by the gateway in bubblewrap) and over
 * Streamable HTTP (served by this test, its bearer token named by a variable), from the owner's,
 * a member's, a granted member's and a stranger's seat. The model's `mcp__NAME__TOOL` calls reach
 * the servers; `/mcp` answers by seat; approvals ask with the chat's buttons; `/reload` lists the
 * tools again; a subagent gets the parent turn's MCP tools; the admin console shows the servers.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminTokenPath } from '../../src/gateway/admin/admin-token.ts';
import type { RecordedRequest } from '../fakes/fake-model-server.ts';
import { approveGroups, telegramGroup } from '../helpers/approved-groups.ts';
import { startGateway, type StartedGateway } from '../helpers/gateway-process.ts';
import { startHttpTestServer, stdioTestServer, type HttpTestServer } from '../helpers/mcp-servers.ts';
import { telegramChat, type TelegramPerson } from '../helpers/telegram-chat.ts';
import { findBotMessage, startTelegramGatewayFakes, type TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

const admin = 1001;
const group = -100555;
const member: TelegramPerson = { id: 3003, first_name: 'Mallory' };
const granted: TelegramPerson = { id: 4004, first_name: 'Grace' };
const stranger: TelegramPerson = { id: 5005, first_name: 'Eve' };
const wait = 30_000;
const httpToken = 'tracker-token-0123456789';
const serviceToken = 'service-secret-value-98765';

const offered = (request: RecordedRequest) => ((request.body.tools ?? []) as { name: string }[]).map((tool) => tool.name);
const isChild = (request: RecordedRequest) => JSON.stringify(request.body.messages).includes('you are its subagent');

describe('MCP servers through the gateway', { timeout: 4 * wait }, () => {
  let fakes: TelegramGatewayFakes;
  let gateway: StartedGateway;
  let http: HttpTestServer;
  let chat: ReturnType<typeof telegramChat>;

  beforeAll(async () => {
    fakes = await startTelegramGatewayFakes('operator-mcp-e2e-');
    http = await startHttpTestServer({ token: httpToken, name: 'tracker-server' });
    writeFileSync(
      join(fakes.home, 'operator.json'),
      JSON.stringify({
        groups: { [`telegram:${group}`]: { requireMention: false } },
        tools: { grants: [{ tools: ['mcp'], people: [`telegram:${granted.id}`] }] },
        mcp: {
          servers: {
            t: { ...stdioTestServer({ approval: ['fail'], env: { SECRET_VALUE: '${SERVICE_TOKEN}' } }), timeoutSeconds: 20 },
            tracker: { url: http.url, headers: { Authorization: 'Bearer ${TRACKER_TOKEN}' } },
          },
        },
      }),
    );
    await approveGroups(fakes.home, [telegramGroup(group)]);
    gateway = await startGateway({ home: fakes.home, env: { ...fakes.env([admin]), TRACKER_TOKEN: httpToken, SERVICE_TOKEN: serviceToken } }, wait);
    chat = telegramChat({ fakes, gateway, admin, group, waitMs: wait });
  }, 2 * wait);

  afterAll(async () => {
    await gateway?.stop();
    await http?.close();
    await fakes?.close();
  });

  /** Presses `data` on the bot's message `messageId` in `chatId` as `from`; resolves to the notice the press got. */
  async function press(chatId: number, from: TelegramPerson, data: string, messageId: number): Promise<string | undefined> {
    const update = fakes.telegram.callbackQuery({ chatId, from, data, messageId });
    fakes.telegram.pushUpdate(update);
    return (await fakes.telegram.waitFor((fake) => fake.answeredCallbacks.find((answered) => answered.id === update.callback_query!.id), wait)).text;
  }

  /** Sends `text` to the bot in `chatId` as `from` and resolves to the bot's next message there. */
  async function ask(chatId: number, from: TelegramPerson, text: string): Promise<string> {
    const before = fakes.telegram.messages(chatId).length;
    fakes.telegram.pushUpdate(fakes.telegram.textMessage({ chatId, text, from }));
    const [reply] = await chat.messagesAfter(chatId, before, 1);
    return reply!.text;
  }

  it("offers the owner every server's tools and runs their calls: over stdio in the sandbox and over HTTP with its token", async () => {
    const { model } = fakes;
    const start = model.requests.length;
    model.enqueue(
      { toolCalls: [{ name: 'mcp__t__echo', arguments: { text: 'from the owner' } }, { name: 'mcp__tracker__echo', arguments: { text: 'to the tracker' } }, { name: 'mcp__t__secret', arguments: {} }] },
      { text: 'Both servers answered.' },
    );
    expect(await ask(admin, { id: admin, first_name: 'Ada' }, 'ask both servers')).toBe('Both servers answered.');
    const [first, second] = model.requests.slice(start);
    expect(offered(first!)).toEqual(expect.arrayContaining(['mcp__t__echo', 'mcp__t__hang', 'mcp__tracker__echo', 'mcp__tracker__add_tool']));
    const results = JSON.stringify(second!.body.messages.at(-1));
    expect(results).toContain('test-server echoes: from the owner');
    expect(results).toContain('tracker-server echoes: to the tracker');
    // What the server was given through `${SERVICE_TOKEN}` never reaches the model, nor the log.
    expect(results).toContain('the secret is [REDACTED]');
    expect(results).not.toContain(serviceToken);
    expect(gateway.output.all()).not.toContain(serviceToken);
    expect(gateway.output.all()).not.toContain(httpToken);
    expect(http.authorizations.length).toBeGreaterThan(0);
    expect(http.authorizations.every((header) => header === `Bearer ${httpToken}`)).toBe(true);
  });

  it('asks with buttons before a call its server names in approval, and runs it once allowed', async () => {
    const { model } = fakes;
    expect(await ask(admin, { id: admin, first_name: 'Ada' }, '/new')).toBe('Started a fresh conversation.');
    model.enqueue({ toolCalls: [{ name: 'mcp__t__fail', arguments: {} }] }, { text: 'It failed, as it does.' });
    fakes.telegram.pushUpdate(fakes.telegram.textMessage({ chatId: admin, text: 'run the failing tool', from: { id: admin, first_name: 'Ada' } }));
    const question = await findBotMessage(fakes.telegram, gateway, admin, 'mcp.servers.t.approval', wait);
    expect(question.text).toContain('mcp__t__fail');
    expect(await press(admin, { id: admin, first_name: 'Ada' }, 'approve', question.messageId)).toBe('Approved.');
    await findBotMessage(fakes.telegram, gateway, admin, 'It failed, as it does.', wait);
    expect(JSON.stringify(model.requests.at(-1)!.body.messages.at(-1))).toContain('it failed on purpose');
  });

  it("keeps a group member's turn from the MCP tools, and gives them to a member granted the mcp group", async () => {
    const { model } = fakes;
    let start = model.requests.length;
    model.enqueue({ toolCalls: [{ name: 'mcp__t__echo', arguments: { text: 'MEMBER-CALL' } }] }, { text: 'Not for you.' });
    expect(await ask(group, member, 'call the echo tool')).toBe('Not for you.');
    const [asked, answered] = model.requests.slice(start);
    expect(offered(asked!).filter((name) => name.startsWith('mcp__'))).toEqual([]);
    expect(JSON.stringify(answered!.body.messages.at(-1))).not.toContain('echoes: MEMBER-CALL');

    start = model.requests.length;
    model.enqueue({ toolCalls: [{ name: 'mcp__t__echo', arguments: { text: 'GRANTED-CALL' } }] }, { text: 'Done for Grace.' });
    expect(await ask(group, granted, 'call the echo tool')).toBe('Done for Grace.');
    const [grantedAsked, grantedAnswered] = model.requests.slice(start);
    expect(offered(grantedAsked!)).toEqual(expect.arrayContaining(['mcp__t__echo', 'mcp__tracker__echo']));
    // An mcp grant alone opens no workspace: the group's own folder stays its working directory.
    expect(offered(grantedAsked!)).not.toContain('shell');
    expect(JSON.stringify(grantedAnswered!.body.messages.at(-1))).toContain('test-server echoes: GRANTED-CALL');
  });

  it('answers /mcp by seat: the owner and a granted member see the servers, a member is told no, a stranger gets a pairing code', async () => {
    const owner = await ask(admin, { id: admin, first_name: 'Ada' }, '/mcp');
    expect(owner).toContain('MCP servers of profile default:');
    expect(owner).toMatch(/• t \(command \/.*node, in the sandbox\): ready/);
    expect(owner).toContain('mcp__t__echo');
    expect(owner).toContain(`• tracker (${new URL(http.url).origin}): ready`);
    expect(owner).toContain('asks first: fail');
    expect(owner).not.toContain(httpToken);

    const refused = await ask(group, member, '/mcp');
    expect(refused).toBe('MCP tools are not offered to you here: they are for the owner and for people an admin granted the "mcp" tool group (tools.grants).');

    const grantedReply = await ask(group, granted, '/mcp');
    expect(grantedReply).toContain('mcp__tracker__echo');
    expect(grantedReply).toContain('Their tools are offered to you here.');

    const model = fakes.model.requests.length;
    const strangerReply = await ask(stranger.id, stranger, '/mcp');
    expect(strangerReply).toMatch(/code/i);
    expect(strangerReply).not.toMatch(/tracker|mcp__|MCP servers/);
    expect(fakes.model.requests.length).toBe(model);
  });

  it('lists the tools again on /reload, after the server added one', async () => {
    const { model } = fakes;
    expect(await ask(admin, { id: admin, first_name: 'Ada' }, '/new')).toBe('Started a fresh conversation.');
    model.enqueue({ toolCalls: [{ name: 'mcp__tracker__add_tool', arguments: { tool: 'late_tool' } }] }, { text: 'Added.' });
    expect(await ask(admin, { id: admin, first_name: 'Ada' }, 'add a tool to the tracker')).toBe('Added.');
    const reload = await ask(admin, { id: admin, first_name: 'Ada' }, '/reload');
    expect(reload).toMatch(/MCP: 2 of 2 servers ready, \d+ tools \(\/mcp for more\)\./);
    const start = model.requests.length;
    model.enqueue({ text: 'I see it.' });
    expect(await ask(admin, { id: admin, first_name: 'Ada' }, 'which tools now?')).toBe('I see it.');
    expect(offered(model.requests[start]!)).toContain('mcp__tracker__late_tool');
  });

  it("gives a subagent the parent turn's MCP tools, and its calls reach the server", async () => {
    const { model } = fakes;
    expect(await ask(admin, { id: admin, first_name: 'Ada' }, '/new')).toBe('Started a fresh conversation.');
    const parent = [
      { toolCalls: [{ id: 's1', name: 'spawn_agent', arguments: { task: 'echo through the server' } }] },
      (request: RecordedRequest) => ({ toolCalls: [{ id: 'w1', name: 'wait', arguments: { agent_id: /Subagent '([0-9a-f]{4})' spawned/.exec(JSON.stringify(request.body.messages))![1]!, timeout_seconds: 60 } }] }),
      { text: 'The child echoed.' },
    ];
    model.setDefault((request) => {
      if (isChild(request)) return JSON.stringify(request.body.messages).includes('tool_result') ? { text: 'child done' } : { toolCalls: [{ name: 'mcp__t__echo', arguments: { text: 'CHILD-CALL' } }] };
      const next = parent.shift() ?? { text: 'ok' };
      return typeof next === 'function' ? next(request) : next;
    });
    const start = model.requests.length;
    const before = fakes.telegram.messages(admin).length;
    chat.dm('let a subagent do it');
    await fakes.telegram.waitFor((fake) => fake.messages(admin).slice(before).find((message) => message.text === 'The child echoed.'), wait);
    const children = model.requests.slice(start).filter(isChild);
    expect(offered(children[0]!)).toContain('mcp__t__echo');
    expect(JSON.stringify(children[1]!.body.messages)).toContain('test-server echoes: CHILD-CALL');
    model.setDefault({ text: 'ok' });
  });

  it('starts a server that crashed again, says so in its log, and its tools answer in the next turn', async () => {
    const { model } = fakes;
    expect(await ask(admin, { id: admin, first_name: 'Ada' }, '/new')).toBe('Started a fresh conversation.');
    model.enqueue({ toolCalls: [{ name: 'mcp__t__crash', arguments: {} }] }, { text: 'It crashed.' });
    expect(await ask(admin, { id: admin, first_name: 'Ada' }, 'crash the server')).toBe('It crashed.');
    expect(JSON.stringify(model.requests.at(-1)!.body.messages.at(-1))).toContain('the MCP server t stopped during the call');
    await gateway.output.waitFor(/MCP server t: it stopped: the process exited with code 3; its last words: crashing on purpose; starting again in 1 s/, { stream: 'all', timeoutMs: wait, label: 'the crash in the log' });
    await gateway.output.waitFor(/MCP server t: running again \(1 restart so far\)/, { stream: 'all', timeoutMs: wait, label: 'the restart in the log' });
    expect(await ask(admin, { id: admin, first_name: 'Ada' }, '/mcp')).toContain(`• t (command ${process.execPath}, in the sandbox): ready, 1 restart so far`);
    model.enqueue({ toolCalls: [{ name: 'mcp__t__echo', arguments: { text: 'after the crash' } }] }, { text: 'Back.' });
    expect(await ask(admin, { id: admin, first_name: 'Ada' }, 'is it back?')).toBe('Back.');
    expect(JSON.stringify(model.requests.at(-1)!.body.messages.at(-1))).toContain('test-server echoes: after the crash');
  });

  it('shows the servers on the admin console', async () => {
    const token = readFileSync(adminTokenPath(fakes.home), 'utf8').trim();
    const response = await fetch(`${gateway.origin}/admin/api/profiles`, { headers: { authorization: `Bearer ${token}` } });
    const body = (await response.json()) as { profiles: { name: string; mcp: { name: string; state: string; tools: string[] }[] }[] };
    const servers = body.profiles.find((profile) => profile.name === 'default')!.mcp;
    expect(servers.map((server) => [server.name, server.state])).toEqual([
      ['t', 'ready'],
      ['tracker', 'ready'],
    ]);
    expect(servers[0]!.tools).toContain('mcp__t__look');
    expect(JSON.stringify(body)).not.toContain(httpToken);
  });
});
