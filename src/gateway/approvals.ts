/** Guardrail questions asked in the conversation: buttons where the platform has them, else `/approve` or `/deny`. */
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
): Promise<boolean> {
  if (!adapter) return Promise.resolve(false);
  const place = { platform: conversation.address.platform, conversation: conversation.key, tool: request.call.name, summary: describeCall(request.call) };
  ops?.emit({ type: 'approval.asked', ...place, reason: request.reason });
  return new Promise<boolean>((resolve) => {
    let settled = false;
    const settle = (allowed: boolean, by = 'nobody (stopped or timed out)') => {
      if (conversation.pendingApproval?.resolve === settle) conversation.pendingApproval = undefined;
      if (!settled) ops?.emit({ type: 'approval.answered', ...place, approved: allowed, by });
      settled = true;
      resolve(allowed);
    };
    conversation.pendingApproval = { request, resolve: settle };
    request.signal.addEventListener('abort', () => settle(false), { once: true });
    const question = approvalQuestion(request.call, request.reason);
    const buttons = adapter.capabilities.buttons ? [[{ label: 'Approve', data: 'approve' }, { label: 'Deny', data: 'deny' }]] : undefined;
    // `approval` lets an adapter show the call itself (the web chat's card); the others send the text.
    const approval = { tool: request.call.name, arguments: request.call.arguments, reason: request.reason };
    void adapter.send(conversation.address, { text: buttons ? question : `${question}\nAnswer /approve or /deny.`, buttons, approval }).catch((error: unknown) => {
      log(`${conversation.key}: approval question not sent: ${errorMessage(error)}`);
      settle(false);
    });
  });
}

/** What someone gets who may not answer the waiting question. */
export const approvalRefusal = 'Only the person being answered, or an admin, can answer this question.';

/**
 * Answers the conversation's waiting question for `senderId` (a button press or `/approve`,
 * `/deny`), and returns what to tell them. Only the person whose turn asks, or an admin, may.
 */
export function answerApproval(conversation: Pick<Conversation, 'pendingApproval' | 'turnSender'> | undefined, allowed: boolean, senderId: string, admin: boolean): string {
  if (!conversation?.pendingApproval) return 'Nothing is waiting for an answer.';
  if (!admin && conversation.turnSender !== senderId) return approvalRefusal;
  conversation.pendingApproval.resolve(allowed, senderId);
  return allowed ? 'Approved.' : 'Denied.';
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
