/**
 * Approval questions in a conversation: Allow once, Allow for this conversation for 1 hour, Deny;
 * an hour's allowance covers the same tool in the same conversation only, and ends; only the
 * person being answered or an admin may answer; a question nobody answers in time denies and the
 * chat is told, one stopped for another reason says nothing.
 */
import { describe, expect, it } from 'vitest';
import { ApprovalTimedOut } from '../../src/agent/approval-wait.ts';
import type { ApprovalRequest } from '../../src/agent/agent-options.ts';
import type { ChannelAdapter, ConversationAddress, OutboundMessage } from '../../src/channels/types.ts';
import { allowanceMs, answerApproval, approvalButtons, askApproval, timeoutNote } from '../../src/gateway/approvals.ts';
import { adminCopies, ApprovalDesk, copyButtons, type AdminCopies } from '../../src/gateway/approval-desk.ts';
import type { KnownConversation } from '../../src/gateway/known-conversations.ts';
import type { Conversation } from '../../src/gateway/conversations.ts';

/** A chat that keeps what it was sent. */
function fakeChat(buttons = true) {
  const sent: OutboundMessage[] = [];
  const adapter = { platform: 'telegram', capabilities: { buttons }, send: async (_address: ConversationAddress, message: OutboundMessage) => (sent.push(message), { id: String(sent.length) }) } as unknown as ChannelAdapter;
  return { adapter, sent };
}

function conversationOf(key: string): Conversation {
  return { key, address: { platform: 'telegram', conversationId: key }, scope: 'group', turnSender: '7', overheard: [], lastActive: 0 } as unknown as Conversation;
}

function request(tool: string, signal = new AbortController().signal): ApprovalRequest {
  return { call: { type: 'tool-call', id: 'c1', name: tool, arguments: { command: 'ls' } }, reason: 'this turn read untrusted content (a web page (https://x.example/)), and `shell` acts', signal };
}

const log = () => {};

describe('approval questions', () => {
  it('offer Allow once, Allow for this conversation for 1 hour and Deny; an hour covers the same tool here only, then ends', async () => {
    let now = 1_000_000;
    const clock = () => now;
    const { adapter, sent } = fakeChat();
    const here = conversationOf('telegram:group:1');
    const asked = askApproval(adapter, here, request('shell'), { log, now: clock });
    await Promise.resolve();
    expect(sent[0]!.buttons).toEqual(approvalButtons);
    expect(approvalButtons.flat().map((button) => button.label)).toEqual(['Allow once', 'Deny', 'Allow for this conversation for 1 hour']);
    // A bystander may not answer; the speaker allows for the hour.
    expect(answerApproval(here, true, '8', false, { forAnHour: true, now })).toBe('Only the person being answered, or an admin, can answer this question.');
    expect(answerApproval(here, true, '7', false, { forAnHour: true, now })).toBe('Allowed: `shell` runs in this conversation without asking for the next hour.');
    expect(await asked).toBe(true);
    // The same tool here: unasked.
    expect(await askApproval(adapter, here, request('shell'), { log, now: clock })).toBe(true);
    expect(sent).toHaveLength(1);
    // Another tool here, and the same tool in another conversation: asked.
    void askApproval(adapter, here, request('write_file'), { log, now: clock });
    expect(answerApproval(here, false, '7', false)).toBe('Denied.');
    const elsewhere = conversationOf('telegram:group:2');
    void askApproval(adapter, elsewhere, request('shell'), { log, now: clock });
    expect(answerApproval(elsewhere, true, '7', false)).toBe('Approved.');
    expect(sent).toHaveLength(3);
    // An hour later: asked again.
    now += allowanceMs + 1;
    const again = askApproval(adapter, here, request('shell'), { log, now: clock });
    expect(sent).toHaveLength(4);
    answerApproval(here, true, '7', true);
    expect(await again).toBe(true);
  });

  it('says how to answer where there are no buttons, the hour included', async () => {
    const { adapter, sent } = fakeChat(false);
    const here = conversationOf('telegram:group:3');
    void askApproval(adapter, here, request('shell'), { log });
    expect(sent[0]!.buttons).toBeUndefined();
    expect(sent[0]!.text).toContain('Answer /approve, /approve hour (this tool, in this conversation, for an hour) or /deny.');
    answerApproval(here, false, '7', false);
  });

  it('denies a question nobody answered in time, and tells the chat; a stopped one says nothing', async () => {
    const { adapter, sent } = fakeChat();
    const here = conversationOf('telegram:group:4');
    const timer = new AbortController();
    const timedOut = askApproval(adapter, here, request('shell', timer.signal), { log });
    timer.abort(new ApprovalTimedOut(600_000));
    expect(await timedOut).toBe(false);
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent.at(-1)!.text).toBe('Nobody answered within 10 minutes, so `shell` was not run.');
    expect(here.pendingApproval).toBeUndefined();
    const stop = new AbortController();
    const stopped = askApproval(adapter, here, request('shell', stop.signal), { log });
    stop.abort(new Error('turn aborted'));
    expect(await stopped).toBe(false);
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toHaveLength(3);
    expect(timeoutNote('shell', 15_000)).toBe('Nobody answered within 15 seconds, so `shell` was not run.');
    expect(timeoutNote('shell', 60_000)).toBe('Nobody answered within 1 minute, so `shell` was not run.');
  });

  it("sends a scheduled job's question (or one answering another bot) to the admins at once; an admin's press there answers it, once", async () => {
    const { adapter, sent } = fakeChat();
    const here = { ...conversationOf('telegram:group:5'), scheduledRun: true } as Conversation;
    const desk = new ApprovalDesk();
    const copies: { text: string; id: string; except?: string }[] = [];
    const sender: AdminCopies = { send: async (text, id, except) => (copies.push({ text, id, except }), 1) };
    const asked = askApproval(adapter, here, request('shell'), { log, escalation: { desk, copies: sender, afterMs: 60_000 } });
    await new Promise((resolve) => setImmediate(resolve));
    expect(copies).toHaveLength(1);
    expect(copies[0]!.text).toMatch(/^Approval needed in telegram:group:5, where nobody can answer it:\nApproval needed: this turn read untrusted content/);
    expect(copies[0]!.except).toBeUndefined();
    expect(sent.map((message) => message.text)).toEqual(["`shell` needs an admin's approval; I asked the admins in their direct messages."]);
    expect(desk.answer(copies[0]!.id, true, false, { id: '9', admin: false })).toBe('Only an admin can answer this question.');
    expect(desk.answer(copies[0]!.id, true, true, { id: '1', admin: true })).toBe('Allowed: `shell` runs in this conversation without asking for the next hour.');
    expect(await asked).toBe(true);
    expect(here.allowances?.has('shell')).toBe(true);
    expect(desk.size).toBe(0);
    expect(desk.answer(copies[0]!.id, false, false, { id: '1', admin: true })).toBe('That question was answered already, or it timed out.');

    // A turn that answers another bot has no person to ask either.
    const bots = { ...conversationOf('telegram:group:9'), turnSenderIsBot: true } as Conversation;
    const botAsked = askApproval(adapter, bots, request('shell'), { log, escalation: { desk, copies: sender, afterMs: 60_000 } });
    await new Promise((resolve) => setImmediate(resolve));
    expect(copies).toHaveLength(2);
    expect(copies[1]!.text).toMatch(/^Approval needed in telegram:group:9, where nobody can answer it:/);
    expect(desk.answer(copies[1]!.id, false, false, { id: '1', admin: true })).toBe('Denied.');
    expect(await botAsked).toBe(false);
  });

  it('asks in the conversation when no admin can be reached, and copies a question left waiting to the admins but the speaker', async () => {
    const { adapter, sent } = fakeChat();
    const desk = new ApprovalDesk();
    const nobody: AdminCopies = { send: async () => 0 };
    const job = { ...conversationOf('telegram:group:6'), scheduledRun: true } as Conversation;
    const asked = askApproval(adapter, job, request('shell'), { log, escalation: { desk, copies: nobody, afterMs: 60_000 } });
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent[0]!.buttons).toEqual(approvalButtons);
    answerApproval(job, false, '1', true);
    expect(await asked).toBe(false);

    const copies: { text: string; id: string; except?: string }[] = [];
    const sender: AdminCopies = { send: async (text, id, except) => (copies.push({ text, id, except }), 1) };
    const here = conversationOf('telegram:group:7');
    const waiting = askApproval(adapter, here, request('shell'), { log, escalation: { desk, copies: sender, afterMs: 0 } });
    await new Promise((resolve) => setTimeout(resolve, 0));
    await new Promise((resolve) => setImmediate(resolve));
    expect(copies).toEqual([{ text: expect.stringMatching(/^Still waiting for an answer in telegram:group:7:\nApproval needed/), id: expect.stringMatching(/^[0-9a-f]{8}$/), except: 'telegram:7' }]);
    // The speaker answers in the conversation first: the copy is stale.
    expect(answerApproval(here, false, '7', false)).toBe('Denied.');
    expect(await waiting).toBe(false);
    expect(desk.answer(copies[0]!.id, true, false, { id: '1', admin: true })).toBe('That question was answered already, or it timed out.');
    // Answered before it waited long enough: no copy.
    const there = conversationOf('telegram:group:8');
    const quick = askApproval(adapter, there, request('shell'), { log, escalation: { desk, copies: sender, afterMs: 60_000 } });
    expect(answerApproval(there, true, '7', false)).toBe('Approved.');
    expect(await quick).toBe(true);
    expect(copies).toHaveLength(1);
    expect(desk.size).toBe(0);
  });

  it("sends copies to the admins' direct conversations the bot has had, with buttons naming the question", async () => {
    const sends: { platform: string; conversationId: string; text: string; buttons: unknown }[] = [];
    const chat = (platform: string, buttons: boolean) => ({
      capabilities: { buttons },
      send: async (address: ConversationAddress, message: OutboundMessage) => {
        if (address.conversationId === 'broken') throw new Error('HTTP 500');
        sends.push({ platform, conversationId: address.conversationId, text: message.text, buttons: message.buttons });
        return { id: '1' };
      },
    });
    const known: KnownConversation[] = [
      { sessionKey: 'slack:dm:U1', address: { platform: 'slack', conversationId: 'D1' }, scope: 'dm' },
      { sessionKey: 'slack:channel:C1', address: { platform: 'slack', conversationId: 'C1' }, scope: 'group' },
      { sessionKey: 'web:dm:W1', address: { platform: 'web', conversationId: 'broken' }, scope: 'dm' },
    ];
    const lines: string[] = [];
    const copies = adminCopies({
      admins: async () => ['telegram:1', 'slack:U1', 'discord:7', 'telegram:2', 'web:W1', 'nonsense'],
      known: { all: async (platform?: string) => known.filter((entry) => entry.address.platform === platform) },
      adapters: new Map([
        ['telegram', chat('telegram', true)],
        ['slack', chat('slack', true)],
        ['discord', chat('discord', true)],
        ['web', chat('web', false)],
      ]) as never,
      log: (line) => lines.push(line),
    });
    expect(await copies.send('Still waiting', 'abcd1234', 'telegram:2')).toBe(2);
    expect(sends).toEqual([
      { platform: 'telegram', conversationId: '1', text: 'Still waiting', buttons: copyButtons('abcd1234') },
      { platform: 'slack', conversationId: 'D1', text: 'Still waiting', buttons: copyButtons('abcd1234') },
    ]);
    expect(copyButtons('abcd1234').flat().map((button) => button.data)).toEqual(['approve@abcd1234', 'deny@abcd1234', 'approve:hour@abcd1234']);
    expect(lines).toEqual(['question abcd1234: copy to web:W1 not sent: HTTP 500']);
  });
});
