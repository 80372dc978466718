/**
 * Approval questions asked in the conversation: buttons where the platform has them (Allow once,
 * Allow for this conversation for 1 hour, Deny), else `/approve`, `/approve hour` or `/deny`. An
 * hour's allowance lets the same tool run in the same conversation unasked until it ends (kept in
 * memory: a restart, or the conversation idling out, asks again). A question nobody answers in
 * time denies, and the chat is told.
 */
import { ApprovalTimedOut } from '../agent/approval-wait.ts';
import type { ApprovalRequest } from '../agent/agent-options.ts';
import type { ChannelAdapter } from '../channels/types.ts';
import { errorMessage } from '../core/errors.ts';
import type { Conversation } from './conversations.ts';
import type { OpsEvents } from './ops/ops-events.ts';
import { describeCall } from './ops/describe-call.ts';
import { approvalQuestion } from './approval-text.ts';

/**
 * Asks `conversation` to approve a tool call and resolves with the answer. The question waits in
 * `conversation.pendingApproval` for a button press or a command; an aborted request, or a
 * question that cannot be sent, denies.
 */
export function askApproval(
  adapter: ChannelAdapter | undefined,
  conversation: Conversation,
  request: ApprovalRequest,
  log: (line: string) => void,
  ops?: OpsEvents,
  now: () => number = Date.now,
): Promise<boolean> {
  if (!adapter) return Promise.resolve(false);
  const place = { platform: conversation.address.platform, conversation: conversation.key, tool: request.call.name, summary: describeCall(request.call) };
  ops?.emit({ type: 'approval.asked', ...place, reason: request.reason });
  const allowedUntil = conversation.allowances?.get(request.call.name);
  if (allowedUntil !== undefined && allowedUntil > now()) {
    ops?.emit({ type: 'approval.answered', ...place, approved: true, by: `allowed for this conversation until ${new Date(allowedUntil).toISOString()}` });
    return Promise.resolve(true);
  }
  return new Promise<boolean>((resolve) => {
    let settled = false;
    const settle = (allowed: boolean, by = 'nobody (stopped or timed out)') => {
      if (conversation.pendingApproval?.resolve === settle) conversation.pendingApproval = undefined;
      if (!settled) ops?.emit({ type: 'approval.answered', ...place, approved: allowed, by });
      settled = true;
      resolve(allowed);
    };
    conversation.pendingApproval = { request, resolve: settle };
    request.signal.addEventListener(
      'abort',
      () => {
        const timedOut = !settled && request.signal.reason instanceof ApprovalTimedOut;
        settle(false);
        if (timedOut) void adapter.send(conversation.address, { text: timeoutNote(request.call.name, (request.signal.reason as ApprovalTimedOut).timeoutMs) }).catch((error: unknown) => log(`${conversation.key}: approval timeout not told: ${errorMessage(error)}`));
      },
      { once: true },
    );
    const question = approvalQuestion(request.call, request.reason);
    const buttons = adapter.capabilities.buttons ? approvalButtons : undefined;
    // `approval` lets an adapter show the call itself (the web chat's card); the others send the text.
    const approval = { tool: request.call.name, arguments: request.call.arguments, reason: request.reason };
    void adapter.send(conversation.address, { text: buttons ? question : `${question}\nAnswer /approve, /approve hour (this tool, in this conversation, for an hour) or /deny.`, buttons, approval }).catch((error: unknown) => {
      log(`${conversation.key}: approval question not sent: ${errorMessage(error)}`);
      settle(false);
    });
  });
}

/** How long "Allow for this conversation" lets a tool run unasked. */
export const allowanceMs = 60 * 60_000;

/** The question's buttons: the hour's allowance on a row of its own (its label is long). */
export const approvalButtons = [
  [
    { label: 'Allow once', data: 'approve' },
    { label: 'Deny', data: 'deny' },
  ],
  [{ label: 'Allow for this conversation for 1 hour', data: 'approve:hour' }],
];

/** What someone gets who may not answer the waiting question. */
export const approvalRefusal = 'Only the person being answered, or an admin, can answer this question.';

/** What the chat is told when a question was not answered in time. */
export function timeoutNote(tool: string, timeoutMs: number): string {
  const minutes = Math.round(timeoutMs / 60_000);
  const wait = minutes >= 1 ? `${minutes} minute${minutes === 1 ? '' : 's'}` : `${Math.round(timeoutMs / 1000)} seconds`;
  return `Nobody answered within ${wait}, so \`${tool}\` was not run.`;
}

/**
 * Answers the conversation's waiting question for `senderId` (a button press or `/approve`,
 * `/approve hour`, `/deny`), and returns what to tell them. Only the person whose turn asks, or an
 * admin, may. `forAnHour` also lets the same tool run in this conversation unasked for an hour.
 */
export function answerApproval(
  conversation: Pick<Conversation, 'pendingApproval' | 'turnSender' | 'allowances'> | undefined,
  allowed: boolean,
  senderId: string,
  admin: boolean,
  options: { forAnHour?: boolean; now?: number } = {},
): string {
  if (!conversation?.pendingApproval) return 'Nothing is waiting for an answer.';
  if (!admin && conversation.turnSender !== senderId) return approvalRefusal;
  const tool = conversation.pendingApproval.request.call.name;
  if (allowed && options.forAnHour) (conversation.allowances ??= new Map()).set(tool, (options.now ?? Date.now()) + allowanceMs);
  conversation.pendingApproval.resolve(allowed, senderId);
  if (!allowed) return 'Denied.';
  return options.forAnHour ? `Allowed: \`${tool}\` runs in this conversation without asking for the next hour.` : 'Approved.';
}

/**
 * Denies every question waiting for approval in `conversations` (the gateway is stopping, so
 * nobody could answer it); returns the notes to send where they were asked.
 */
export function denyApprovals(conversations: readonly Conversation[]): { address: Conversation['address']; text: string }[] {
  const notes = [];
  for (const conversation of conversations) {
    if (!conversation.pendingApproval) continue;
    const { call } = conversation.pendingApproval.request;
    conversation.pendingApproval.resolve(false, 'nobody (the gateway stopped)');
    notes.push({ address: conversation.address, text: `The gateway is restarting, so \`${call.name}\` was not approved. Ask again once it is back.` });
  }
  return notes;
}
