/**
 * One turn, from its start to its recorded reply: the agent answers a person's messages (or a
 * scheduled job), the answer is streamed, recorded in the delivery ledger with the inbox keys it
 * answers, and delivered. Where the turn began is noted in the inbox first, with the preview
 * once it shows, so a turn cut off by a crash is run again from the person's message and
 * finishes the preview it left.
 */
import { join } from 'node:path';
import type { ChannelAdapter, ConversationAddress, InboundMessage, OutboundFile } from '../channels/types.ts';
import { AgentError, TurnTimeoutError, errorMessage } from '../core/errors.ts';
import type { TaskSlot } from '../core/task-slot.ts';
import type { Runtime } from '../runtime/runtime.ts';
import type { SessionTree } from '../session/session-tree.ts';
import type { TurnContext } from '../tools/tool.ts';
import { readSeat } from '../tools/turn-seat.ts';
import type { Conversation } from './conversations.ts';
import { recentChatFrame, tempDirectoryOf } from './conversations.ts';
import { keySegment } from './dedupe.ts';
import { escapeFrame } from './speaker-label.ts';
import { failureReply, refusalReason } from './failure-reply.ts';
import type { Refusals } from './refusals.ts';
import type { Outbox } from './files/outbox.ts';
import { imagesOf, saveDocuments, type DocumentReader, type InboundFileReports, type InboundImages } from './files/inbound-files.ts';
import { gatewayHearing, type HearRecordings } from './files/voice-notes.ts';
import type { TranscriptionLimits } from '../media/transcription.ts';
import { documentMark, documentReader, documentSource, maxDocumentChars } from './files/document-text.ts';
import { readInThread } from './files/read-in-thread.ts';
import type { Inbox, InboxEntry, TurnStart } from './inbox.ts';
import type { DeliveryLedger } from './ledger/index.ts';
import { previewMarker, ReplyStream, silentReply } from './reply-stream.ts';
import { overdueNote, slowModelNoticeFor } from './slow-model-notice.ts';
import { SubagentProgress } from './subagent-progress.ts';
import type { ReplySender } from './reply-sender.ts';
import { replayInput, rewindTo } from './restart-replay.ts';
import type { Job, RunDelivery, RunOutcome } from './scheduler/index.ts';
import { isStoreFailure } from './store-failure.ts';
import type { GatewaySpending } from './budget/gateway-spending.ts';
import { SpendingPausedError } from './budget/spending-paused.ts';
import { isAskable } from './budget/spend-asks.ts';
import type { TurnAccess } from './turn-access.ts';
import { keepTyping } from './typing-indicator.ts';
import type { SessionTaints } from './session-taint.ts';
import { otherPeopleSource, sharedFilesSource } from '../tools/turn-taint.ts';
import { typingBudget, type TypingBudget } from './typing-budget.ts';
import type { TurnLane } from './turn-lanes.ts';
import type { WaitingMessage } from './waiting-messages.ts';
import type { OpsEvents } from './ops/ops-events.ts';
import { reportTurn, turnFailureOf, type TurnReport } from './turn-report.ts';

/**
 * What a turn answers: a person's messages (taken together, from their conversation's lane) or a
 * scheduled job's run (`run`: its due time, as its spending caps name it); with the slot of the
 * queued task running it, which its model calls step out of while they wait (see `core/task-slot.ts`).
 */
export type TurnSource = ({ batch: WaitingMessage[]; lane: TurnLane } | { job: Job; run: string }) & { slot?: TaskSlot };

/** What the turn runner works with (the gateway's parts). */
export interface TurnRunnerOptions {
  runtime: Runtime;
  inbox: Inbox;
  ledger: DeliveryLedger;
  outbox: Outbox;
  /** Queues a file for the reply of `turn` (the browser's screenshots; see `TurnContext.attachFile`). */
  attachFile?(turn: TurnContext, path: string, name?: string): Promise<string>;
  sender: ReplySender;
  turnAccess: TurnAccess;
  isAdmin(platform: string, userId: string): boolean;
  log(line: string): void;
  /** Longest a turn may take (`turnTimeoutSeconds`); then it stops and the person is told. */
  turnTimeoutMs: number;
  /** True once the gateway stops: a turn cut short then is left for the next start. */
  stopping(): boolean;
  /** The store failed under a turn: its messages wait until it recovers (see StoreHealth). */
  storeFailed(error: unknown, what: string): void;
  /** The preview of the answer to inbox key `key` shows as `previewId` (kept in memory too, for a turn the failing store cuts short). */
  previewShown(key: string, previewId: string): void;
  /** Messages answered whose inbox entries could not be cleared (the store failed): not to be answered again. */
  answeredButKept(keys: readonly string[]): void;
  /** Where turns are reported (start, end with tokens, cost and time; replies delivered or failed). */
  ops?: OpsEvents;
  /** How long a model call of `provider` may show nothing before the person is told it is slow (`notifyAfterSeconds`). */
  notifyAfterMs(provider: string): number;
  /** The sessions' taint (`taint.mode`): what untrusted content each turn's context holds. */
  taints?: SessionTaints;
  /** Spending caps: after a turn, the notice once a cap passes `budgets.warnAt`; a refused turn's question to the admins. */
  spending?: () => Pick<GatewaySpending, 'warning' | 'asks' | 'reserveCost'>;
  /** The largest voice note or other recording transcribed into the person's words (`transcription`; unset: the defaults). */
  transcription?: TranscriptionLimits;
  /** Turns refused for something about the bot (a cap, a provider): reported, and told once an hour per reason (see `refusals.ts`). */
  refusals?: Refusals;
}

/** How a turn ended for its messages: answered (done in the inbox) or left to be answered later. */
type Settlement = 'answered' | 'left';

/** Runs turns and delivers their replies. */
export class TurnRunner {
  readonly #options: TurnRunnerOptions;
  /** Each platform's typing indicators, shared by its conversations (see `typing-budget.ts`). */
  readonly #typingBudgets = new Map<string, TypingBudget>();
  /** Hears a message's recordings before its turn (transcribed where an endpoint is configured). */
  readonly #hear: HearRecordings;

  constructor(options: TurnRunnerOptions) {
    this.#options = options;
    this.#hear = gatewayHearing({ env: options.runtime.env, limits: options.transcription, spending: options.spending, ops: options.ops, log: options.log });
  }

  /**
   * One turn in `conversation` for `message` (the first of `source.batch`, or the job's). Messages
   * the running turn takes in as steering are answered by its reply too. Resolves to what
   * happened (for a job's run record).
   */
  run(adapter: ChannelAdapter, conversation: Conversation, message: InboundMessage, source: TurnSource): Promise<RunOutcome> {
    const place = { platform: message.address.platform, conversation: message.sessionKey, turn: turnIdOf(message) };
    const turn = { place, profile: conversation.profile, agent: conversation.agent, scheduled: 'job' in source };
    return reportTurn(this.#options.ops, turn, (report) => this.#run(adapter, conversation, message, source, report));
  }

  async #run(adapter: ChannelAdapter, conversation: Conversation, message: InboundMessage, source: TurnSource, report: TurnReport): Promise<RunOutcome> {
    const { agent } = conversation;
    const { inbox, log } = this.#options;
    const address = message.address;
    const job = 'job' in source ? source.job : undefined;
    const batch = 'batch' in source ? source.batch : [];
    const lane = 'lane' in source ? source.lane : undefined;
    const replayed = batch[0]?.entry;
    // Messages an interrupted turn left unanswered are answered by this one.
    const carried = lane?.carried.splice(0) ?? [];
    // A turn run again after a restart answers every message it began with (some may not be waiting yet).
    const keys = [...new Set([...carried, ...batch.map((item) => item.key), ...(replayed?.begun?.keys ?? [])])];
    const answers = () => [...keys, ...(lane?.steering.taken ?? [])];
    const replyTo = message.scope === 'group' && !job ? message.id : undefined;
    // Notes go on the turn's first message (one an interrupted turn left, if any): a restart runs
    // the turn again from there, with every message it answers.
    const first = job ? undefined : keys[0];
    let noting = Promise.resolve();
    const lost = await this.#lostPreview(adapter, address, replayed, first);
    const stream = new ReplyStream(adapter, address, {
      replyTo,
      messageId: replayed?.previewId ?? lost ?? takeCarriedPreview(lane),
      // The same for every run of this turn: where the platform can, a run after a crash gets
      // back the preview a dead process sent but never noted, and finishes it.
      idempotencyKey: first === undefined ? undefined : `${first}#preview`,
      // Noted one after another, and all before the messages leave the inbox: a note written after
      // that would bring the entry back, to be answered again after a restart.
      onPreview: first === undefined ? undefined : (id) => (noting = noting.then(() => this.#notePreview(first, id))),
    });
    const typing = keepTyping(adapter, address, this.#typingBudget(adapter.platform));
    const { subagents } = agent.options;
    const progress = subagents && new SubagentProgress(adapter, address, { replyTo, log });
    const stopProgress = subagents?.onProgress((lines) => progress!.update(lines));
    // A job's turn tells nobody: no one asked and waits for it.
    const slow = job
      ? undefined
      : slowModelNoticeFor({ adapter, address, stream, replyTo, label: message.sessionKey, provider: agent.providerName, afterMs: this.#options.notifyAfterMs(agent.providerName), log });
    const unsubscribe = agent.subscribe((event) => {
      slow?.hear(event);
      if (event.type === 'text_delta') stream.push(event.text);
      // What the model said before a tool call shows before the tool runs (or asks for approval).
      if (event.type === 'tool_execution_start') stream.showNow();
      if (event.type === 'turn_start') stream.separate();
      if (event.type === 'steering_injected') lane?.steering.injected(event.text);
    });
    if (job) conversation.scheduledRun = true;
    conversation.turnSender = message.sender.id;
    conversation.turnSenderIsBot = message.sender.isBot === true;
    lane?.steering.begin();
    if (lane) lane.interrupted = false;
    let settlement: Settlement = 'answered';
    try {
      const tree = await agent.session();
      const start = job ? { input: message.text, leaf: tree.leafId, keys: [] } : await this.#start(adapter, conversation, batch, tree, report);
      if (!job) await inbox.begin({ ...start, keys, at: Date.now() });
      // Images too large to take are named to the model beside the message (the person is told).
      const { images, notes } = replayed || job ? { images: [], notes: [] } : await this.#images(adapter, batch);
      const input = notes.length > 0 ? [start.input, ...notes].filter((part) => part !== '').join('\n') : start.input;
      // The turn's deadline: a provider that keeps failing slowly, or a tool that runs on, stops there.
      const timeoutMs = this.#options.turnTimeoutMs;
      const turn = await this.#turnContext(conversation, message, 'job' in source ? source : undefined, { sessionId: tree.id, input });
      const result = await agent.invoke(input, { channel: message.sessionKey, images, timeoutMs, slot: source.slot, turn });
      if (result.aborted && this.#options.stopping()) {
        // Stopped by the shutdown: answered after the restart, from the person's message. A draft
        // stays a draft (the restart's turn streams its own): made a message now, the restart would
        // have to finish a stopped turn's words.
        settlement = 'left';
        report.status = 'left';
        await stream.close({ leaving: true });
        return { status: 'error', error: 'the gateway stopped before the turn finished' };
      }
      if (result.aborted && !result.text && lane?.interrupted) {
        // Interrupted by a newer message before it said anything: that message's turn answers both,
        // and finishes the preview this one showed (if any) rather than leave it.
        settlement = 'left';
        report.status = 'left';
        lane.carried.push(...answers());
        lane.carriedPreview = (await stream.close()) ?? lane.carriedPreview;
        return { status: 'ok' };
      }
      // Aborted turns without text send nothing; files the agent sent go with the answer.
      if (result.aborted && !result.text) {
        report.status = 'stopped';
        const previewId = await stream.close();
        if (previewId !== undefined) await this.#finishPreview(adapter, address, previewId, 'Stopped.');
        return { status: 'ok' };
      }
      const files = this.#options.outbox.take(message.sessionKey);
      const previewId = await stream.close();
      const reply = { text: result.text || (files.length > 0 ? '' : '(no answer)'), files: files.length > 0 ? files : undefined, turnId: turnIdOf(message), previewId, replyTo, answers: answers() };
      await noting;
      const delivery = await this.#deliver(adapter, conversation, address, reply);
      if (result.aborted) report.status = 'stopped';
      // Near a spending cap: told once a day, after the answer (a failure to tell is only logged).
      const warning = await this.#options.spending?.().warning(turn).catch((error: unknown) => void log(`${message.sessionKey}: spending notice not made: ${errorMessage(error)}`));
      if (warning) await adapter.send(address, { text: warning }).catch((error: unknown) => log(`${message.sessionKey}: spending notice not sent: ${errorMessage(error)}`));
      return { status: 'ok', delivery };
    } catch (error) {
      const previewId = await stream.close();
      if (!job && (isStoreFailure(error) || error instanceof SpendingPausedError || (this.#options.stopping() && isCancellation(error)))) {
        // Nothing is cleared: the messages are answered once the store works again, model calls
        // are resumed (`/budget resume`: the person is told they wait) or after the restart,
        // from where the turn began.
        settlement = 'left';
        report.status = 'left';
        if (isStoreFailure(error)) this.#options.storeFailed(error, `${message.sessionKey}: turn`);
        if (error instanceof SpendingPausedError) await this.#finishPreview(adapter, address, previewId, this.#tells(message, error, previewId) ? error.message : undefined);
        return { status: 'error', error: errorMessage(error) };
      }
      const overdue = error instanceof TurnTimeoutError;
      report.status = overdue ? 'timeout' : 'error';
      Object.assign(report, { error: errorMessage(error), failure: turnFailureOf(error) });
      log(`${message.sessionKey}: ${overdue ? `turn stopped at its deadline (${Math.round(error.timeoutMs / 1000)} s)` : `turn failed: ${errorMessage(error)}`}`);
      // Cut short while a model call had shown nothing: the provider is why, not the request's size.
      // A spending cap's refusal of a person's turn: the admins are asked to let it go on.
      const asked = !job && isAskable(error) ? await this.#options.spending?.().asks?.refused(message, error) : undefined;
      const reply = overdue ? overdueNote(error.timeoutMs, slow?.silent === true) : asked ? `${failureReply(error)} ${asked}` : failureReply(error);
      await this.#finishPreview(adapter, address, previewId, job || this.#tells(message, error, previewId) ? reply : undefined);
      return { status: 'error', error: errorMessage(error) };
    } finally {
      if (job) conversation.scheduledRun = false;
      conversation.turnSender = undefined;
      conversation.turnSenderIsBot = undefined;
      lane?.steering.end();
      unsubscribe();
      slow?.stop();
      typing.stop();
      stopProgress?.();
      if (subagents) {
        // Children the answer left working are being stopped: their last state goes in the progress message.
        await subagents.afterTurn();
        await progress!.close(subagents.lines());
      }
      // Files of a turn that failed or was stopped before it answered are not sent.
      await this.#options.outbox.discard(this.#options.outbox.take(message.sessionKey)).catch(() => undefined);
      await noting;
      if (settlement === 'answered') await this.#answered(answers());
    }
  }

  /**
   * The preview a turn that began before a crash sent but never noted (its process died before it
   * heard the id), where the platform lets the bot read the conversation back (Slack): found, noted
   * and finished by this run instead of left unfinished beside a new one.
   */
  async #lostPreview(adapter: ChannelAdapter, address: ConversationAddress, replayed: InboxEntry | undefined, first: string | undefined): Promise<string | undefined> {
    const since = replayed?.begun?.at;
    if (since === undefined || replayed?.previewId !== undefined || first === undefined || !adapter.findPreview) return undefined;
    const found = await adapter.findPreview(address, { since, marker: previewMarker }).catch((error: unknown) => {
      this.#options.log(`${address.platform}: unfinished preview not looked for: ${errorMessage(error)}`);
      return undefined;
    });
    if (found !== undefined) await this.#notePreview(first, found);
    return found;
  }

  /** Notes the preview of the answer to `key` in the inbox (and in memory, should the store fail). */
  async #notePreview(key: string, previewId: string): Promise<void> {
    this.#options.previewShown(key, previewId);
    await this.#options.inbox.notePreview(key, previewId).catch((error: unknown) => this.#options.storeFailed(error, `${key}: preview not noted`));
  }

  /**
   * Where the turn of `batch` starts and what the model is given. A turn that began before (the
   * process stopped in it) starts again where it began: the session is rewound to before the
   * person's message, which is given again, when the session went on from there.
   */
  async #start(adapter: ChannelAdapter, conversation: Conversation, batch: WaitingMessage[], tree: SessionTree, report: TurnReport): Promise<TurnStart> {
    const begun = batch[0]?.entry?.begun;
    if (begun) {
      // The session went on from where the turn began (the turn's own partial work): back to it.
      await rewindTo(tree, begun.leaf);
      return { ...begun, leaf: tree.leafId };
    }
    // Each message as the model gets it: documents saved (a live one), or what a restart lost noted.
    // One reader for the turn: its messages' documents (an album's, say) share one limit, read one at a time.
    const read = documentReader(maxDocumentChars, readInThread);
    const texts = await Promise.all(batch.map((item) => (item.entry ? replayInput(item.text, item.entry) : this.#input(adapter, conversation, item.message, item.text, read, report))));
    // An album's parts without a caption add nothing but their images.
    return { input: texts.filter((text) => text !== '').join('\n\n'), leaf: tree.leafId, keys: [] };
  }

  /**
   * What the turn's tools know of it: where it is, who asked (for a job: its creator), which tools
   * that person may use there and the workspace they work in. A job's turn has no more than the
   * seat of the turn that set it (kept with the job; none kept: the least seat).
   */
  async #turnContext(conversation: Conversation, message: InboundMessage, scheduled: { job: Job; run: string } | undefined, session: { sessionId: string; input: string }): Promise<TurnContext> {
    const job = scheduled?.job;
    const { platform, conversationId, threadId } = message.address;
    const admin = this.#options.isAdmin(platform, message.sender.id);
    const seat = { sessionKey: message.sessionKey, platform, scope: message.scope, conversationId, threadId, senderId: message.sender.id, admin };
    const kept = job ? readSeat(job.seat) : undefined;
    const access = await this.#options.turnAccess.forTurn(seat, conversation.agent.tools, await tempDirectoryOf(this.#options.runtime, conversation), kept);
    const context: TurnContext = { sessionKey: message.sessionKey, platform, senderId: message.sender.id, senderName: message.sender.name, admin, scheduled: job !== undefined, turnId: job ? `job ${job.id}` : message.id, profile: conversation.profile, ...access };
    // The job's spending caps count its run's calls.
    if (scheduled) context.job = { id: scheduled.job.id, run: scheduled.run };
    const attach = this.#options.attachFile;
    if (attach) context.attachFile = (path, name) => attach(context, path, name);
    // What untrusted content the context holds: earlier tool results, other people's messages.
    const othersHeard = message.scope === 'group' && session.input.includes(recentChatFrame);
    const taints = this.#options.taints;
    if (taints) context.taint = await taints.begin({ sessionId: session.sessionId, scope: message.scope, speaker: `${platform}:${message.sender.id}`, othersHeard, speakerIsBot: message.sender.isBot === true });
    // A document's text is what its author wrote, whoever sent it: it may say anything.
    if (context.taint && session.input.includes(documentMark)) {
      context.taint.add(documentSource);
      await context.taint.kept();
    }
    // Where others talked, the group's own folder holds what they sent: reading it is untrusted.
    if (context.taint?.sources.includes(otherPeopleSource)) context.sharedFiles = { folder: join(await tempDirectoryOf(this.#options.runtime, conversation), keySegment(message.sessionKey)), source: sharedFilesSource };
    return context;
  }

  /**
   * The model's input for a message: its text, the words of its recordings (or why they were not
   * heard), and its documents (read as text with `read`, and where they were saved; a recording
   * heard is not saved: its words are kept; its cost is the turn's, in `report`).
   */
  async #input(adapter: ChannelAdapter, conversation: Conversation, message: InboundMessage, text: string, read: DocumentReader, report: TurnReport): Promise<string> {
    const reports = this.#fileReports(adapter, message);
    const turn = { profile: conversation.profile, admin: this.#options.isAdmin(message.address.platform, message.sender.id), spent: (costUsd: number) => report.spent(costUsd) };
    const heard = message.attachments.length > 0 ? await this.#hear(message, turn, reports) : undefined;
    const rest = heard ? { ...message, attachments: message.attachments.filter((attachment) => !heard.transcribed.has(attachment)) } : message;
    const documents = rest.attachments.some((attachment) => attachment.kind === 'file');
    const folder = join(await tempDirectoryOf(this.#options.runtime, conversation), keySegment(message.sessionKey));
    const files = documents ? await saveDocuments(folder, rest, reports, read) : [];
    // In a group the words heard are escaped like the person's typed text (see `turnText`).
    const words = heard ? (message.scope === 'group' ? heard.lines.map(escapeFrame) : heard.lines) : [];
    const parts = [text, ...words, ...files];
    return parts.length > 1 ? parts.filter((part) => part !== '').join('\n') : text;
  }

  /**
   * The images of every message the turn answers, in order: an album's parts come as messages of
   * their own, each with its photo, and are answered together.
   */
  async #images(adapter: ChannelAdapter, batch: readonly WaitingMessage[]): Promise<InboundImages> {
    const all: InboundImages = { images: [], notes: [] };
    for (const { message } of batch) {
      const { images, notes } = await imagesOf(message, this.#fileReports(adapter, message));
      all.images.push(...images);
      all.notes.push(...notes);
    }
    return all;
  }

  /** The typing indicators' budget of `platform`, made with its first turn. */
  #typingBudget(platform: string): TypingBudget {
    let budget = this.#typingBudgets.get(platform);
    if (!budget) this.#typingBudgets.set(platform, (budget = typingBudget()));
    return budget;
  }

  /**
   * Whether the person hears why their turn failed: always, unless it was a refusal (see
   * `refusalReason`) whose reason they heard within the hour. A preview already shown is finished
   * with the reason all the same: it is an edit of what they see, not one message more.
   */
  #tells(message: InboundMessage, error: unknown, previewId: string | undefined): boolean {
    const reason = refusalReason(error);
    if (reason === undefined || !this.#options.refusals) return true;
    return this.#options.refusals.turn(message, reason, previewId !== undefined);
  }

  /** Where reading `message`'s files reports: the log, and a reply to the message in its chat (a file too large, a voice note not heard). */
  #fileReports(adapter: ChannelAdapter, message: InboundMessage): InboundFileReports {
    const { log } = this.#options;
    return {
      log,
      // Files too large: the person hears so once an hour (the model is told of each file).
      tooLarge: (count) => this.#options.refusals?.files(message, count) ?? true,
      tell: (text) => adapter.send(message.address, { text, replyTo: message.id }).then(
        () => undefined,
        (error: unknown) => log(`${message.sessionKey}: could not tell the person about their file: ${errorMessage(error)}`),
      ),
    };
  }

  /**
   * Records the reply in the ledger (with the inbox keys of the messages it answers), clears
   * those from the inbox, then delivers it (editing the preview when it fits).
   */
  async #deliver(
    adapter: ChannelAdapter,
    conversation: Conversation,
    address: ConversationAddress,
    reply: { text: string; files: OutboundFile[] | undefined; turnId: string; previewId: string | undefined; replyTo: string | undefined; answers: string[] },
  ): Promise<RunDelivery> {
    const { previewId, replyTo, files } = reply;
    // Files are sent even when the text is silent: they are what the agent chose to send.
    const text = files && reply.text.trim() === silentReply ? '' : reply.text;
    // The preview is recorded with the reply: a gateway restarted after a crash then edits this
    // message too, rather than leave the half-streamed preview above a second copy.
    const id = await this.#options.ledger.record({ sessionKey: conversation.key, address, ...reply, text });
    // From here the ledger answers for the reply: a crash no longer means answering anew.
    await this.#answered(reply.answers);
    if (text.trim() === silentReply) {
      await this.#finishPreview(adapter, address, previewId, undefined);
      return { status: 'silent' };
    }
    const failure = await this.#options.sender.send(adapter, { id, turnId: reply.turnId, sessionKey: conversation.key, address, text, files, replyTo }, previewId, { attempts: 3, failure: 'reply not delivered' });
    return failure === undefined ? { status: 'delivered' } : { status: 'failed', error: failure };
  }

  /**
   * Clears answered messages from the inbox. When the store fails here the reply still goes out:
   * the messages are reported as answered but kept, so they are not answered again once the store
   * works (see `TurnRunnerOptions.answeredButKept`).
   */
  async #answered(inboxKeys: string[]): Promise<void> {
    const kept: string[] = [];
    await Promise.all(inboxKeys.map((key) => this.#options.inbox.done(key).catch((error: unknown) => {
      kept.push(key);
      this.#options.storeFailed(error, `${key}: answered message not cleared from the inbox`);
    })));
    if (kept.length > 0) this.#options.answeredButKept(kept);
  }

  /**
   * Ends a preview that no answer replaces: it becomes `text` (a failure told, "Stopped."), or
   * "(no answer)" for a silent one. Without a preview `text` is sent.
   */
  async #finishPreview(adapter: ChannelAdapter, address: ConversationAddress, previewId: string | undefined, text: string | undefined): Promise<void> {
    const { log } = this.#options;
    if (previewId === undefined) {
      if (text !== undefined) await adapter.send(address, { text }).catch((error: unknown) => log(`${address.platform}: could not send: ${errorMessage(error)}`));
      return;
    }
    await adapter.edit(address, previewId, { text: text ?? '(no answer)' }).catch(async (error: unknown) => {
      log(`${address.platform}: preview not finished: ${errorMessage(error)}`);
      if (text !== undefined) await adapter.send(address, { text }).catch(() => undefined);
    });
  }
}

/** The id of the turn answering `message`: its reply's in the delivery ledger, and the log's. */
function turnIdOf(message: InboundMessage): string {
  return `${message.dedupeKey}#0`;
}


/** The preview an interrupted turn left for the next turn to finish (taken once). */
function takeCarriedPreview(lane: TurnLane | undefined): string | undefined {
  const previewId = lane?.carriedPreview;
  if (lane) lane.carriedPreview = undefined;
  return previewId;
}

function isCancellation(error: unknown): boolean {
  return error instanceof AgentError && error.category === 'CANCELLATION';
}
