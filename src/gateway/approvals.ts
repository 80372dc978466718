/**
 * Approval questions asked in the conversation: buttons where the platform has them (Allow once,
 * Allow for this conversation for 1 hour, Deny), else `/approve`, `/approve hour` or `/deny`. An
 * hour's allowance lets the same tool run in the same conversation unasked until it ends (kept in
 * the store by the gateway, so a restart keeps it). A question nobody answers in
 * time denies, and the chat is told. Questions nobody in the conversation can answer, and those
 * left waiting, also reach the admins in their direct messages (see `approval-desk.ts`).
 */
import { ApprovalTimedOut } from '../agent/approval-wait.ts';
import type { ApprovalRequest } from '../agent/agent-options.ts';
import type { ChannelAdapter } from '../channels/types.ts';
import { errorMessage } from '../core/errors.ts';
import type { Conversation } from './conversations.ts';
import type { OpsEvents } from './ops/ops-events.ts';
import { describeCall } from './ops/describe-call.ts';
import { approvalQuestion } from './approval-text.ts';
import { adminCopies, ApprovalDesk, copyText, type AdminCopies, type AdminCopiesOptions } from './approval-desk.ts';
import type { AccessPolicy } from './access/access-policy.ts';
import type { Store } from '../store/store.ts';
import { keySegment } from './dedupe.ts';

/** How a question goes out besides the conversation (see `approval-desk.ts`). */
export interface ApprovalEscalation {
  desk: ApprovalDesk;
  copies: AdminCopies;
  /** After this long unanswered in the conversation, the admins get a copy (once). */
  afterMs: number;
}

/** What {@link askApproval} works with. */
export interface AskApprovalOptions {
  log: (line: string) => void;
  ops?: OpsEvents;
  now?: () => number;
  /** Copies to the admins' direct messages; unset: the conversation alone is asked. */
  escalation?: ApprovalEscalation;
}

/**
 * Asks `conversation` to approve a tool call and resolves with the answer. The question waits in
 * `conversation.pendingApproval` for a button press or a command; an aborted request, or a
 * question that cannot be sent, denies. With `escalation`, a scheduled job's question (nobody
 * waits in the conversation) and one in a turn that answers another bot go to the admins at once,
 * and any other goes to them too once it has waited `afterMs`; the first answer counts.
 */
export function askApproval(adapter: ChannelAdapter | undefined, conversation: Conversation, request: ApprovalRequest, options: AskApprovalOptions): Promise<boolean> {
  const { log, ops, escalation } = options;
  const now = options.now ?? Date.now;
  if (!adapter) return Promise.resolve(false);
  const place = { platform: conversation.address.platform, conversation: conversation.key, tool: request.call.name, summary: describeCall(request.call) };
  const allowedUntil = conversation.allowances?.get(request.call.name);
  if (allowedUntil !== undefined && allowedUntil > now()) {
    ops?.emit({ type: 'approval.answered', ...place, approved: true, by: `allowed for this conversation until ${new Date(allowedUntil).toISOString()}` });
    return Promise.resolve(true);
  }
  ops?.emit({ type: 'approval.asked', ...place, reason: request.reason });
  return new Promise<boolean>((resolve) => {
    let settled = false;
    let timer: ReturnType<typeof setTimeout> | undefined = undefined;
    let id: string | undefined;
    const settle = (allowed: boolean, by = 'nobody (stopped or timed out)') => {
      if (conversation.pendingApproval?.resolve === settle) conversation.pendingApproval = undefined;
      if (!settled) ops?.emit({ type: 'approval.answered', ...place, approved: allowed, by });
      settled = true;
      clearTimeout(timer);
      if (id !== undefined) escalation?.desk.close(id);
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
    const told = (error: unknown) => {
      log(`${conversation.key}: approval question not sent: ${errorMessage(error)}`);
      settle(false);
    };
    if (escalation) {
      // An admin's copy answers as an admin's press here would.
      id = escalation.desk.open((allowed, forAnHour, by) => answerApproval(conversation, allowed, by, true, { forAnHour, now: now() }));
    }
    const inConversation = () => {
      const buttons = adapter.capabilities.buttons ? approvalButtons : undefined;
      // `approval` lets an adapter show the call itself (the web chat's card); the others send the text.
      const approval = { tool: request.call.name, arguments: request.call.arguments, reason: request.reason };
      return adapter.send(conversation.address, { text: buttons ? question : `${question}\nAnswer /approve, /approve hour (this tool, in this conversation, for an hour) or /deny.`, buttons, approval });
    };
    if (!escalation || id === undefined) {
      void inConversation().catch(told);
      return;
    }
    const copies = escalation.copies;
    const copyId = id;
    if (conversation.scheduledRun || conversation.turnSenderIsBot) {
      // Nobody waits in the conversation for a scheduled job's turn, and a bot is no one to ask:
      // the admins are asked at once.
      void copies
        .send(copyText(conversation.key, question, 'nobody'), copyId)
        .then((sent) =>
          sent > 0 ? adapter.send(conversation.address, { text: `\`${request.call.name}\` needs an admin's approval; I asked the admins in their direct messages.` }) : inConversation(),
        )
        .catch(told);
      return;
    }
    void inConversation().catch(told);
    const speaker = conversation.turnSender === undefined ? undefined : `${conversation.address.platform}:${conversation.turnSender}`;
    timer = setTimeout(() => {
      if (!settled) void copies.send(copyText(conversation.key, question, 'waiting'), copyId, speaker);
    }, escalation.afterMs);
    timer.unref?.();
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

/** The gateway's approvals: the desk the admins' copies answer through, and how a conversation asks. */
export interface GatewayApprovals {
  desk: ApprovalDesk;
  /** Copies to the admins' direct messages, for other questions that need an admin (a spending cap's). */
  copies: AdminCopies;
  ask(conversation: Conversation, request: ApprovalRequest): Promise<boolean>;
}

/** What {@link gatewayApprovals} needs. */
export interface GatewayApprovalsOptions extends Omit<AdminCopiesOptions, 'admins'> {
  /** The configured admins (`platform:userId`); the owner made by pairing is read from `access`. */
  admins: readonly string[];
  access: Pick<AccessPolicy, 'listPairings'>;
  settings: { timeoutSeconds: number; escalateAfterSeconds?: number };
  ops?: OpsEvents;
  /** Where the hour's allowances are kept, so a restart keeps them (`allowances:<conversation>`). */
  store?: Pick<Store, 'get' | 'set'>;
}

/**
 * Approvals as the gateway asks them: in the conversation, and in the admins' direct messages
 * for a scheduled job's question at once, for any other once it has waited
 * `approvals.escalateAfterSeconds` (default: half of `timeoutSeconds`).
 */
export function gatewayApprovals(options: GatewayApprovalsOptions): GatewayApprovals {
  const desk = new ApprovalDesk();
  const admins = async () => {
    const owner = (await options.access.listPairings()).owner;
    return [...new Set([...options.admins, ...(owner ? [`${owner.platform}:${owner.userId}`] : [])])];
  };
  const copies = adminCopies({ ...options, admins });
  const { timeoutSeconds, escalateAfterSeconds = timeoutSeconds / 2 } = options.settings;
  const escalation = { desk, copies, afterMs: escalateAfterSeconds * 1000 };
  const { store } = options;
  return {
    desk,
    copies,
    async ask(conversation, request) {
      const key = allowancesKey(conversation.key);
      // Read once per conversation in memory: allowances given before a restart still hold.
      if (store && !conversation.allowances) conversation.allowances = new Map(Object.entries(readAllowances(await store.get<unknown>(key).catch(() => undefined))));
      const before = conversation.allowances?.get(request.call.name);
      const allowed = await askApproval(options.adapters.get(conversation.address.platform) as ChannelAdapter | undefined, conversation, request, { log: options.log, ops: options.ops, escalation });
      const after = conversation.allowances?.get(request.call.name);
      if (store && after !== before && conversation.allowances) {
        const now = Date.now();
        const current = Object.fromEntries([...conversation.allowances].filter(([, until]) => until > now));
        await store.set(key, current).catch((error: unknown) => options.log(`${conversation.key}: the hour's allowance is kept in memory only: ${errorMessage(error)}`));
      }
      return allowed;
    },
  };
}

/** Store key of a conversation's hour's allowances ("Allow for this conversation for 1 hour"). */
export function allowancesKey(sessionKey: string): string {
  return `allowances:${keySegment(sessionKey)}`;
}

/** Allowances as kept: `{ tool: until (ms) }`; anything else reads as none. */
function readAllowances(value: unknown): Record<string, number> {
  if (typeof value !== 'object' || value === null) return {};
  return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, number] => typeof entry[1] === 'number' && Number.isFinite(entry[1])));
}
