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
    const asked = askApproval(adapter, here, request('shell'), log, undefined, clock);
    await Promise.resolve();
    expect(sent[0]!.buttons).toEqual(approvalButtons);
    expect(approvalButtons.flat().map((button) => button.label)).toEqual(['Allow once', 'Deny', 'Allow for this conversation for 1 hour']);
    // A bystander may not answer; the speaker allows for the hour.
    expect(answerApproval(here, true, '8', false, { forAnHour: true, now })).toBe('Only the person being answered, or an admin, can answer this question.');
    expect(answerApproval(here, true, '7', false, { forAnHour: true, now })).toBe('Allowed: `shell` runs in this conversation without asking for the next hour.');
    expect(await asked).toBe(true);
    // The same tool here: unasked.
    expect(await askApproval(adapter, here, request('shell'), log, undefined, clock)).toBe(true);
    expect(sent).toHaveLength(1);
    // Another tool here, and the same tool in another conversation: asked.
    void askApproval(adapter, here, request('write_file'), log, undefined, clock);
    expect(answerApproval(here, false, '7', false)).toBe('Denied.');
    const elsewhere = conversationOf('telegram:group:2');
    void askApproval(adapter, elsewhere, request('shell'), log, undefined, clock);
    expect(answerApproval(elsewhere, true, '7', false)).toBe('Approved.');
    expect(sent).toHaveLength(3);
    // An hour later: asked again.
    now += allowanceMs + 1;
    const again = askApproval(adapter, here, request('shell'), log, undefined, clock);
    expect(sent).toHaveLength(4);
    answerApproval(here, true, '7', true);
    expect(await again).toBe(true);
  });

  it('says how to answer where there are no buttons, the hour included', async () => {
    const { adapter, sent } = fakeChat(false);
    const here = conversationOf('telegram:group:3');
    void askApproval(adapter, here, request('shell'), log);
    expect(sent[0]!.buttons).toBeUndefined();
    expect(sent[0]!.text).toContain('Answer /approve, /approve hour (this tool, in this conversation, for an hour) or /deny.');
    answerApproval(here, false, '7', false);
  });

  it('denies a question nobody answered in time, and tells the chat; a stopped one says nothing', async () => {
    const { adapter, sent } = fakeChat();
    const here = conversationOf('telegram:group:4');
    const timer = new AbortController();
    const timedOut = askApproval(adapter, here, request('shell', timer.signal), log);
    timer.abort(new ApprovalTimedOut(600_000));
    expect(await timedOut).toBe(false);
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent.at(-1)!.text).toBe('Nobody answered within 10 minutes, so `shell` was not run.');
    expect(here.pendingApproval).toBeUndefined();
    const stop = new AbortController();
    const stopped = askApproval(adapter, here, request('shell', stop.signal), log);
    stop.abort(new Error('turn aborted'));
    expect(await stopped).toBe(false);
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent).toHaveLength(3);
    expect(timeoutNote('shell', 15_000)).toBe('Nobody answered within 15 seconds, so `shell` was not run.');
    expect(timeoutNote('shell', 60_000)).toBe('Nobody answered within 1 minute, so `shell` was not run.');
  });
});
