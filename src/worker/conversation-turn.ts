/**
 * A conversation's turns on Workers, run by its Durable Object's alarm, one at a time: the
 * messages waiting are answered together (those that came during a turn wait for the next, as
 * follow-ups on Node), through the gateway's own parts: the inbox notes where a turn began and
 * its streamed preview, the delivery ledger records the reply before it is sent, the reply
 * sender delivers it once. An object evicted mid-turn is woken again by its stored alarm and
 * runs the turn again from where it began (the session rewound to before the person's message);
 * a reply already on record is sent, not made again.
 *
 * A turn refused because an admin paused model calls (`/budget pause`) leaves its messages in the
 * inbox, where it began: the person is told once that they are answered when calls resume, and
 * they are not tried again in a loop (the object's alarm is not set again for them). The spend
 * object wakes the conversation on `/budget resume`, and they are answered once, from where their
 * turn began.
 */
import type { Agent } from '../agent/agent.ts';
import type { ChannelAdapter } from '../channels/types.ts';
import { TurnTimeoutError, errorMessage } from '../core/errors.ts';
import { SpendingPausedError } from '../gateway/budget/spending-paused.ts';
import { failureReply } from '../gateway/failure-reply.ts';
import { documentMark, documentSource } from '../gateway/files/document-text.ts';
import { recentChatFrame } from '../gateway/conversations.ts';
import { SessionTaints } from '../gateway/session-taint.ts';
import type { InboxEntry } from '../gateway/inbox.ts';
import { silentReplyText } from '../gateway/ledger/ledger-entry.ts';
import { ReplyStream } from '../gateway/reply-stream.ts';
import type { ReplySender } from '../gateway/reply-sender.ts';
import { rewindTo } from '../gateway/restart-replay.ts';
import { overdueNote, slowModelNoticeFor } from '../gateway/slow-model-notice.ts';
import type { RunOutcome } from '../gateway/scheduler/index.ts';
import type { TurnContext } from '../tools/tool.ts';
import type { ConversationParts } from './conversation-object.ts';
import type { InboundFiles } from './inbound-files.ts';
import type { WireMessage } from './wire-message.ts';
import type { WorkerSpending } from './worker-spending.ts';

/** What a conversation's turns work with (its object's parts). */
export interface TurnParts extends ConversationParts {
  sender: ReplySender;
  /** The files people sent: read (and kept in R2) by the turn that answers them. */
  files: InboundFiles;
  /** The conversation's agent (made once per object instance). */
  agent(): Promise<Agent>;
  /** The spending of the conversation's calls: the notice near a cap after an answer. */
  spending: Pick<WorkerSpending, 'warning'>;
  /** The adapter that answers `entry`'s platform (Discord: by the interaction it came with), if configured. */
  channelFor(entry: InboxEntry): Promise<ChannelAdapter | undefined>;
  /** Whether `entry` may reach the agent, whether its sender is an admin, and what a stranger is told. */
  admit(entry: InboxEntry): Promise<{ allowed: boolean; admin: boolean; reply?: string }>;
  /** Answers a `/command` the Worker handles itself; resolves to its reply, or undefined to let the agent answer. */
  command(entry: InboxEntry, admin: boolean): Promise<string | undefined>;
  /** Longest a turn may take, in ms. */
  turnTimeoutMs: number;
  /** How long a model call of `provider` may show nothing before the person is told it is slow. */
  notifyAfterMs(provider: string): number;
  /** The person the running turn answers (unset between turns): they, or an admin, may stop it. */
  turnSender?: string;
  /**
   * The inbox keys the running round read for its turn: an edit of one of them changes nothing,
   * as its turn has its words (see `edited-entry.ts`). Emptied once that turn is over.
   */
  taking: Set<string>;
  log(line: string): void;
}

/**
 * Sends replies on record that never went out (the object stopped between recording and
 * delivering; `resend`: the first time in an object's life, or after a failure), then answers
 * the messages waiting, oldest first, until none are left but those whose turn model calls being
 * paused refused (they wait for the resume, which wakes the object again).
 */
export async function answerWaiting(parts: TurnParts, options: { resend: boolean }): Promise<void> {
  const undelivered = options.resend ? await parts.ledger.pending() : [];
  // A message whose reply is on record was answered: only the reply is left to send.
  const recorded = new Set(undelivered.flatMap((entry) => entry.answers ?? []));
  for (const entry of undelivered) {
    const adapter = await parts.channelFor(entryOf(entry));
    if (adapter && (await parts.ledger.claim(entry.id))) await parts.sender.send(adapter, entry, entry.previewId, { attempts: 3, failure: 'reply not delivered' });
  }
  // Left for the resume: not tried again in this round, where calls were refused as paused.
  const paused = new Set<string>();
  try {
    for (;;) {
      const pending = await parts.inbox.pending();
      // Read for a turn: their words are the turn's from here, whatever an edit says meanwhile.
      for (const entry of pending) parts.taking.add(entry.key);
      const waiting = [];
      for (const entry of pending) {
        if (recorded.has(entry.key)) await parts.inbox.done(entry.key);
        else if (!paused.has(entry.key)) waiting.push(entry);
      }
      if (waiting.length === 0) return await forgetTold(parts, paused);
      for (const key of await answerBatch(parts, waiting, { paused: paused.size > 0 })) paused.add(key);
      parts.taking.clear();
    }
  } finally {
    parts.taking.clear();
  }
}

/** The inbox-like view of a ledger entry, for finding its platform's adapter. */
function entryOf(entry: { sessionKey: string; address: InboxEntry['address']; answers?: string[] }): InboxEntry {
  const key = entry.answers?.[0] ?? '';
  return { key, dedupeKey: key, sessionKey: entry.sessionKey, address: entry.address, scope: 'dm', messageId: '', sender: { id: '' }, text: '', attachments: [], receivedAt: 0 };
}

/**
 * One turn for the messages of `waiting` that may reach the agent (a turn begun before goes first,
 * with its own); resolves to the keys of those left waiting because model calls are paused.
 * `paused`: a call was refused so in this round already; a turn begun before (its messages wait
 * for the resume) is then not run again, at a turn's cost each, only to be refused. A new
 * message's turn still runs: its refusal tells its person, and the resume may have come between.
 */
async function answerBatch(parts: TurnParts, waiting: InboxEntry[], round: { paused: boolean }): Promise<string[]> {
  const first = waiting[0]!;
  const adapter = await parts.channelFor(first);
  if (!adapter) {
    // Without the platform's credentials nothing can be said: the messages are let go, and said so.
    parts.log(`${first.sessionKey}: no credentials for ${first.address.platform}; ${waiting.length} message(s) not answered`);
    for (const entry of waiting) await parts.inbox.done(entry.key);
    await parts.files.forget(waiting);
    return [];
  }
  const begun = first.begun;
  // A turn begun before (the object stopped in it) answers what it began with, before anything newer.
  const batch = begun ? waiting.filter((entry) => begun.keys.includes(entry.key)) : waiting;
  // What waits for a later turn is not this one's: an edit may still reword it.
  for (const entry of waiting) if (!batch.includes(entry)) parts.taking.delete(entry.key);
  if (begun && round.paused) return batch.map((entry) => entry.key);
  const admitted: { entry: InboxEntry; admin: boolean }[] = [];
  for (const entry of batch) {
    const decision = await parts.admit(entry);
    if (begun) {
      // Let in when it began: run again as it was, its sender an admin if they are one (their caps,
      // their seat), as when it is answered after model calls resumed.
      admitted.push({ entry, admin: decision.allowed && decision.admin });
      continue;
    }
    if (!decision.allowed) {
      // A refusal's words, or a group's pairing code (given once: later refusals there say nothing).
      if (decision.reply) await adapter.send(entry.address, { text: decision.reply }).catch((error: unknown) => parts.log(`${entry.sessionKey}: could not send: ${errorMessage(error)}`));
      await parts.inbox.done(entry.key);
      // A refused message's files are never fetched: their references go with it.
      await parts.files.forget([entry]);
      continue;
    }
    const answer = entry.command ? await parts.command(entry, decision.admin) : undefined;
    if (answer !== undefined) {
      await replyOnce(parts, adapter, entry, answer);
      continue;
    }
    admitted.push({ entry, admin: decision.admin });
  }
  if (admitted.length === 0) return [];
  const outcome = await runTurn(parts, adapter, admitted, { begun });
  return outcome.waiting ?? [];
}

/** A command's answer, through the ledger like any reply (recorded, the message let go, then sent). */
async function replyOnce(parts: TurnParts, adapter: ChannelAdapter, entry: InboxEntry, text: string): Promise<void> {
  const turnId = `${entry.dedupeKey}#0`;
  const id = await parts.ledger.record({ sessionKey: entry.sessionKey, address: entry.address, text, turnId, answers: [entry.key] });
  await parts.inbox.done(entry.key);
  await parts.sender.send(adapter, { id, turnId, sessionKey: entry.sessionKey, address: entry.address, text }, undefined, { attempts: 3, failure: 'reply not delivered' });
}

/** How a turn is run: again from where it began, or for a scheduled job (whose message is not in the inbox). */
export interface TurnOptions {
  begun?: InboxEntry['begun'];
  scheduled?: boolean;
  /** The scheduled job's run the turn is (its id, and its run's due time as `jobRunId` names it): the job's caps count its calls. */
  job?: { id: string; run: string };
}

/** What a turn did; `waiting`: the inbox keys it left for the resume of model calls (paused by an admin). */
export type TurnOutcome = RunOutcome & { waiting?: string[] };

/**
 * Runs the agent's turn for `admitted` and delivers its reply; resolves to what happened (a
 * job's run record keeps it).
 */
export async function runTurn(parts: TurnParts, adapter: ChannelAdapter, admitted: { entry: InboxEntry; admin: boolean }[], options: TurnOptions = {}): Promise<TurnOutcome> {
  const { begun, scheduled = false, job } = options;
  const { entry: first } = admitted[0]!;
  // The messages the turn answers, let go once its reply is on record (a job's is not in the inbox).
  const keys = scheduled ? [] : [...new Set([...(begun?.keys ?? []), ...admitted.map(({ entry }) => entry.key)])];
  // Their files' references go with them, not before: until then a turn cut off runs again over
  // the same messages.
  const answered = scheduled ? [] : admitted.map(({ entry }) => entry);
  const address = first.address;
  const replyTo = first.scope === 'group' && !scheduled ? first.messageId : undefined;
  const agent = await parts.agent();
  parts.turnSender = first.sender.id;
  let noting = Promise.resolve();
  const stream = new ReplyStream(adapter, address, {
    replyTo,
    messageId: first.previewId,
    idempotencyKey: `${first.key}#preview`,
    onPreview: scheduled ? undefined : (id) => (noting = noting.then(() => parts.inbox.notePreview(first.key, id))),
  });
  // A job's turn tells nobody it is slow: no one asked and waits for it.
  const slow = scheduled
    ? undefined
    : slowModelNoticeFor({ adapter, address, stream, replyTo, label: first.sessionKey, provider: agent.providerName, afterMs: parts.notifyAfterMs(agent.providerName), log: parts.log });
  const unsubscribe = agent.subscribe((event) => {
    slow?.hear(event);
    if (event.type === 'text_delta') stream.push(event.text);
    if (event.type === 'tool_execution_start') stream.showNow();
    if (event.type === 'turn_start') stream.separate();
  });
  try {
    const tree = await agent.session();
    // Only now, for people let in, are files fetched; a turn run again reads them from R2 alone.
    const files = await parts.files.read(admitted, { replay: begun !== undefined });
    // A recording not heard, files too large to take: named to the model, and the person hears of them at once.
    for (const { entry, text } of files.notices) {
      await adapter.send(entry.address, { text, replyTo: entry.messageId }).catch((error: unknown) => parts.log(`${entry.sessionKey}: could not tell the person about their file: ${errorMessage(error)}`));
    }
    let input: string;
    if (begun) {
      await rewindTo(tree, begun.leaf);
      input = begun.input;
    } else {
      input = files.texts.join('\n\n');
    }
    if (!scheduled) await parts.inbox.begin({ leaf: tree.leafId, input, keys, at: Date.now() });
    // An admin's own direct messages are the owner's seat (the profile's memory is written there
    // alone); a group, anyone else's messages and a job (run as nobody) are other seats.
    const owner = first.scope === 'dm' && !scheduled && admitted.every(({ admin }) => admin);
    const turn: TurnContext = { sessionKey: first.sessionKey, platform: address.platform, senderId: first.sender.id, senderName: first.sender.name, admin: admitted.some(({ admin }) => admin), scheduled, owner, ...(!scheduled && { turnId: first.messageId }), ...(scheduled && job && { job }) };
    // Others' words in a group (or a bot's) are untrusted: a call that acts then needs a person's
    // yes, which nobody can give on Workers (no approvals), so it is refused (see `turn-taint.ts`).
    const speaker = `${address.platform}:${first.sender.id}`;
    turn.taint = await new SessionTaints({ store: parts.store, mode: 'approve', log: parts.log }).begin({ sessionId: tree.id, scope: first.scope, speaker, othersHeard: first.scope === 'group' && input.includes(recentChatFrame), speakerIsBot: first.sender.isBot === true });
    // A document's text is what its author wrote, whoever sent it: it may say anything (as on Node).
    if (input.includes(documentMark)) {
      turn.taint.add(documentSource);
      await turn.taint.kept();
    }
    const result = await agent.invoke(input, { channel: first.sessionKey, images: files.images, timeoutMs: parts.turnTimeoutMs, turn });
    const previewId = await stream.close();
    await noting;
    const text = result.text || (result.aborted ? 'Stopped.' : '(no answer)');
    const turnId = `${first.dedupeKey}#0`;
    const id = await parts.ledger.record({ sessionKey: first.sessionKey, address, text, turnId, previewId, replyTo, answers: keys });
    // From here the ledger answers for the reply: the messages are let go, and with them the
    // references to their files (no turn reads them again; R2 keeps the files).
    for (const key of keys) await parts.inbox.done(key);
    await parts.files.forget(answered);
    let outcome: RunOutcome;
    if (text.trim() === silentReplyText) {
      if (previewId !== undefined) await adapter.edit(address, previewId, { text: '(no answer)' }).catch(() => undefined);
      outcome = { status: 'ok', delivery: { status: 'silent' } };
    } else {
      const failure = await parts.sender.send(adapter, { id, turnId, sessionKey: first.sessionKey, address, text, replyTo }, previewId, { attempts: 3, failure: 'reply not delivered' });
      outcome = { status: 'ok', delivery: failure === undefined ? { status: 'delivered' } : { status: 'failed', error: failure } };
    }
    await tellNearCap(parts, adapter, address, turn);
    return outcome;
  } catch (error) {
    const previewId = await stream.close();
    await noting;
    if (error instanceof SpendingPausedError && !scheduled) {
      // Nothing is let go: the messages wait in the inbox, where their turn began, for the resume.
      parts.log(`${first.sessionKey}: model calls are paused; ${keys.length} message(s) wait for the resume`);
      await tellPaused(parts, adapter, first, keys, { previewId, replyTo, text: error.message });
      return { status: 'error', error: errorMessage(error), waiting: keys };
    }
    const overdue = error instanceof TurnTimeoutError;
    parts.log(`${first.sessionKey}: ${overdue ? 'turn stopped at its deadline' : `turn failed: ${errorMessage(error)}`}`);
    // The failure is told once, through the ledger, and the messages are let go.
    // Cut short while a model call had shown nothing: the provider is why, not the request's size.
    await tellOnce(parts, adapter, first, keys, previewId, overdue ? overdueNote(error.timeoutMs, slow?.silent === true) : failureReply(error));
    await parts.files.forget(answered);
    return { status: 'error', error: errorMessage(error) };
  } finally {
    unsubscribe();
    slow?.stop();
    parts.turnSender = undefined;
  }
}

/**
 * After an answer, the notice near a cap of the turn's conversation or person, when one is due
 * (once a UTC day per cap, see `worker-spending.ts`). A notice that cannot be made or sent is only
 * logged: the answer is out.
 */
async function tellNearCap(parts: TurnParts, adapter: ChannelAdapter, address: InboxEntry['address'], turn: TurnContext): Promise<void> {
  const notice = await parts.spending.warning(turn).catch((error: unknown) => void parts.log(`${turn.sessionKey}: spending notice not made: ${errorMessage(error)}`));
  if (notice) await adapter.send(address, { text: notice }).catch((error: unknown) => parts.log(`${turn.sessionKey}: spending notice not sent: ${errorMessage(error)}`));
}

/** Where the inbox keys of the waiting messages whose people were told model calls are paused are kept. */
const pausedToldKey = 'conversation:paused-told';

/**
 * Tells the conversation that the messages of `keys` wait for model calls to resume (finishing the
 * turn's preview, if it showed one), through the ledger, unless it was told already: a turn tried
 * again while calls are still paused (the object woken by a newer message) says nothing more.
 */
async function tellPaused(parts: TurnParts, adapter: ChannelAdapter, first: InboxEntry, keys: string[], notice: { previewId?: string; replyTo?: string; text: string }): Promise<void> {
  const told = (await parts.store.get<string[]>(pausedToldKey)) ?? [];
  if (keys.every((key) => told.includes(key))) return;
  // Noted with the notice's record, before it is sent (sends wait until both are durable).
  await parts.store.set(pausedToldKey, [...new Set([...told, ...keys])]);
  // No `answers`: the notice answers nothing, and the messages stay waiting.
  const turnId = `${first.dedupeKey}#paused`;
  const id = await parts.ledger.record({ sessionKey: first.sessionKey, address: first.address, text: notice.text, turnId, previewId: notice.previewId, replyTo: notice.replyTo });
  await parts.sender.send(adapter, { id, turnId, sessionKey: first.sessionKey, address: first.address, text: notice.text, replyTo: notice.replyTo }, notice.previewId, { attempts: 3, failure: 'notice of the pause not delivered' });
}

/**
 * Forgets, at the end of a round, that the people of messages no longer waiting were told of the
 * pause: `waiting` holds every message still in the inbox then (each was left for the resume).
 */
async function forgetTold(parts: TurnParts, waiting: ReadonlySet<string>): Promise<void> {
  const told = await parts.store.get<string[]>(pausedToldKey);
  if (told === null) return;
  const still = told.filter((key) => waiting.has(key));
  if (still.length === told.length) return;
  if (still.length === 0) await parts.store.delete(pausedToldKey);
  else await parts.store.set(pausedToldKey, still);
}

/** Tells the conversation a turn failed (replacing its preview), once. */
async function tellOnce(parts: TurnParts, adapter: ChannelAdapter, first: InboxEntry, keys: string[], previewId: string | undefined, text: string): Promise<void> {
  const turnId = `${first.dedupeKey}#0`;
  const id = await parts.ledger.record({ sessionKey: first.sessionKey, address: first.address, text, turnId, previewId, answers: keys });
  for (const key of keys) await parts.inbox.done(key);
  await parts.sender.send(adapter, { id, turnId, sessionKey: first.sessionKey, address: first.address, text }, previewId, { attempts: 3, failure: 'failure notice not delivered' });
}

/** The interaction a message came with (Discord), kept beside the inbox entry by the object. */
export type KeptInteraction = WireMessage['interaction'];
