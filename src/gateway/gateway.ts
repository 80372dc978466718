/**
 * The gateway: platform events in, agent turns, replies out. The pipeline for each message:
 * dedupe -> access -> group gating -> command -> session queue (busy: follow-up, steer or
 * interrupt) -> agent turn with a streamed reply -> delivery ledger -> adapter. Adapters know
 * nothing of agents; the agent knows nothing of platforms.
 */
import { join } from 'node:path';
import type { ChannelAction, ChannelAdapter, ConversationAddress, InboundMessage, OutboundFile } from '../channels/types.ts';
import { NotAcceptedError } from '../channels/types.ts';
import { errorMessage } from '../core/errors.ts';
import type { Runtime } from '../runtime/runtime.ts';
import type { TurnContext } from '../tools/tool.ts';
import { createAccessPolicy } from './access/index.ts';
import { ToolGrants } from './access/tool-grants.ts';
import { answerApproval, askApproval } from './approvals.ts';
import { commandList, handleCommand, isGatewayCommand } from './commands.ts';
import type { GatewayConfig } from './config/index.ts';
import type { Conversation } from './conversations.ts';
import { Conversations, tempDirectoryOf, turnText } from './conversations.ts';
import { createDedupe, keySegment } from './dedupe.ts';
import { Outbox } from './files/outbox.ts';
import { createSendFileTool } from './files/send-file-tool.ts';
import { failureReply } from './failure-reply.ts';
import { createInbox, type InboxEntry } from './inbox.ts';
import { inboxReplayHours, replayedMessage, replayInput } from './restart-replay.ts';
import { KnownConversations } from './known-conversations.ts';
import { createDeliveryLedger, type LedgerEntry } from './ledger/index.ts';
import { ReplyStream, silentReply } from './reply-stream.ts';
import type { Job, RunDelivery, RunOutcome } from './scheduler/index.ts';
import { cliActor, findTarget, schedulerSettings, type ScheduleControl } from './schedule-control.ts';
import { createScheduleTool } from './schedule-tool.ts';
import { jobTarget, scheduledMessage } from './scheduled-turn.ts';
import { Scheduler } from './scheduler/index.ts';
import { imagesOf, saveDocuments } from './files/inbound-files.ts';
import { ReplySender } from './reply-sender.ts';
import { createSessionQueue } from './session-queue.ts';
import { keepTyping } from './typing-indicator.ts';
import { TurnAccess } from './turn-access.ts';

/** Logs what people should know about (never message content, never secrets). */
export type GatewayLog = (line: string) => void;

/** A running gateway's parts, for commands and tests. */
export class Gateway {
  readonly runtime: Runtime;
  readonly config: GatewayConfig;
  readonly adapters: Map<string, ChannelAdapter>;
  readonly conversations: Conversations;
  readonly queue;
  readonly dedupe;
  readonly access;
  readonly ledger;
  readonly log: GatewayLog;
  readonly inbox;
  /** Files the agent sends, until their reply is delivered. */
  readonly outbox: Outbox;
  /** Scheduled follow-ups: their turns run here, in their conversations. */
  readonly scheduler: Scheduler;
  /** Where the conversations the gateway has talked in live (for jobs aimed at one). */
  readonly known: KnownConversations;
  #sweeper: ReturnType<typeof setInterval> | undefined;
  #stopping = false;
  #work = new Set<Promise<void>>();

  /**
   * The web chat is reachable from this machine alone and without a login, so whoever uses it is
   * the owner (every tool, as in an admin's direct messages). False when it requires a login.
   */
  readonly localWeb: boolean;
  /** Who may use the tools that act on the machine (`tools.grants`). */
  readonly grants: ToolGrants;
  readonly #turnAccess: TurnAccess;
  readonly #sender: ReplySender;

  constructor(options: { runtime: Runtime; config: GatewayConfig; adapters: ChannelAdapter[]; log?: GatewayLog; localWeb?: boolean; sandboxed?: boolean }) {
    this.runtime = options.runtime;
    this.localWeb = options.localWeb ?? false;
    this.grants = new ToolGrants({ grants: options.config.tools.grants, localWeb: this.localWeb, sandboxed: options.sandboxed ?? false });
    this.#turnAccess = new TurnAccess({ grants: this.grants, cwd: this.runtime.cwd, home: this.runtime.home });
    this.config = options.config;
    this.adapters = new Map(options.adapters.map((adapter) => [adapter.platform, adapter]));
    this.log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
    this.queue = createSessionQueue({ maxRunning: this.config.maxConcurrentTurns });
    this.dedupe = createDedupe(this.runtime.store);
    // The web chat's policy, unless configured: open while it is the owner's (local), pairing when exposed.
    this.access = createAccessPolicy({ ...this.config, dmPolicy: { ...this.config.dmPolicy, web: this.config.dmPolicy.web ?? (this.localWeb ? 'open' : 'pairing') } }, this.runtime.store);
    this.ledger = createDeliveryLedger(this.runtime.store);
    this.inbox = createInbox(this.runtime.store);
    this.outbox = new Outbox(join(this.runtime.home, 'outbox'));
    this.#sender = new ReplySender({ ledger: this.ledger, outbox: this.outbox, log: (line) => this.log(line) });
    this.known = new KnownConversations(this.runtime.store);
    const sendFile = createSendFileTool({ outbox: this.outbox, maxFileBytes: (platform) => this.adapters.get(platform)?.capabilities.maxFileBytes ?? 0, env: this.runtime.env });
    this.scheduler = new Scheduler({
      store: this.runtime.store,
      run: (job, scheduledFor) => this.runJob(job, scheduledFor),
      notify: (job, text) => this.#notifyOwner(job, text),
      settings: schedulerSettings(this.config.schedule),
      log: (line) => this.log(line),
    });
    const schedule = createScheduleTool({ scheduler: this.scheduler, target: (turn, deliver) => jobTarget(this.conversations, this.known, turn, deliver) });
    this.conversations = new Conversations({
      runtime: this.runtime,
      tools: [sendFile, schedule],
      bindings: () => this.runtime.bindings.bindings(this.config.profiles),
      askApproval: (conversation, request) => askApproval(this.adapters.get(conversation.address.platform), conversation, request, this.log),
    });
  }

  /**
   * Starts every adapter, registers command menus, then finishes what an earlier process left:
   * replies recorded and never delivered go out, messages accepted and never answered are
   * answered. What is left over is read before any adapter starts, so work this process takes
   * on meanwhile is never mistaken for it (and never done twice).
   */
  async start(): Promise<void> {
    const undelivered = await this.ledger.pending();
    // Copies of files no pending reply carries are left over from replies settled or never made.
    await this.outbox.sweep(undelivered.flatMap((entry) => entry.files ?? [])).catch((error: unknown) => this.log(`outbox not swept: ${errorMessage(error)}`));
    // A message whose reply is on record was answered: a crash came between recording the reply
    // and clearing the message from the inbox. The reply goes out; the message is not answered again.
    const recorded = new Set(undelivered.flatMap((entry) => entry.answers ?? []));
    const unanswered = [];
    for (const entry of await this.inbox.pending()) {
      if (recorded.has(entry.key)) await this.inbox.done(entry.key);
      else unanswered.push(entry);
    }
    for (const adapter of this.adapters.values()) {
      await adapter.start({
        onMessage: (message) => this.handleMessage(adapter, message),
        onAction: (action) => this.handleAction(adapter, action),
        history: (sessionKey) => this.conversations.history(sessionKey),
      });
      if (adapter.capabilities.commandMenu && adapter.setCommands) {
        // In the background: the menu is a convenience, and start-up need not wait for it.
        this.#background(adapter.setCommands(commandList).catch((error: unknown) => this.log(`${adapter.platform}: could not register commands: ${errorMessage(error)}`)));
      }
    }
    await this.resendPending(undelivered);
    this.answerInbox(unanswered);
    await this.scheduler.start();
    const ttlMs = this.config.idleTtlSeconds * 1000;
    this.#sweeper = setInterval(() => void this.conversations.sweep(ttlMs), Math.min(ttlMs, 60_000));
    this.#sweeper.unref();
  }

  /** Stops taking messages, lets turns in flight finish and deliver, stops adapters. */
  async stop(): Promise<void> {
    this.#stopping = true;
    clearInterval(this.#sweeper);
    // No job fires from here on; runs in flight finish (their turns are in the queue).
    await this.scheduler.stop();
    // Background work may queue turns (answers left by the last run) and turns may start
    // background work: wait until neither has anything left.
    for (;;) {
      await this.queue.drain();
      if (this.#work.size === 0) break;
      await Promise.all(this.#work);
    }
    for (const adapter of this.adapters.values()) await adapter.stop().catch(() => undefined);
  }

  /**
   * One message from a platform. Resolves once the message is accepted: seen for the first time
   * and, when it asks for an answer, in the inbox; the answer follows in the background. Rejects
   * with {@link NotAcceptedError} only when the message could not be taken (the gateway is
   * stopping, or the store failed), so the adapter leaves it for the platform to deliver again.
   * Anything failing after acceptance is logged and, where it helps, answered briefly.
   */
  async handleMessage(adapter: ChannelAdapter, message: InboundMessage): Promise<void> {
    if (this.#stopping) throw new NotAcceptedError('the gateway is stopping; the message is left for the platform to deliver again');
    if (!(await this.#firstTime(message.dedupeKey))) return;
    try {
      const access = await this.access.check(message);
      if (!access.allowed) {
        if (access.reply) this.#background(this.#sendDirect(adapter, message.address, access.reply));
        return;
      }
      if (isGatewayCommand(message)) {
        this.#background(handleCommand(this, adapter, message, access.admin));
        return;
      }
      if (message.scope === 'group' && !message.mentioned && this.#requiresMention(message)) {
        await this.conversations.overhear(message);
        return;
      }
      const conversation = await this.conversations.get(message);
      this.#remember(message);
      const text = turnText(conversation, message);
      const inboxKey = await this.#accept(message, text);
      // A running turn takes in messages of the person it is for; anyone else's, and any during a
      // scheduled job's turn, get a turn of their own after it: a turn's tools act with one person's rights.
      if (this.queue.busy(message.sessionKey) && conversation.agent.phase === 'turn' && !conversation.scheduledRun && conversation.turnSender === message.sender.id) {
        // Follow-ups and steering carry text only: a message with a photo or a file waits for
        // the running turn and gets its own.
        if (message.attachments.length === 0) {
          conversation.inboxKeys.push(inboxKey);
          this.#whileBusy(conversation, text);
          return;
        }
        if (this.config.busyMode === 'interrupt') conversation.agent.abort();
      }
      this.#startTurn(adapter, conversation, message, text, inboxKey);
    } catch (error) {
      if (error instanceof NotAcceptedError) throw error;
      // Seen but not answerable (e.g. its profile cannot load): the person hears so, once.
      this.log(`${message.sessionKey}: message not handled: ${errorMessage(error)}`);
      this.#background(this.#sendDirect(adapter, message.address, failureReply(error)));
    }
  }

  /** Dedupe, as acceptance: a store failure means "not taken", never "seen". */
  async #firstTime(dedupeKey: string): Promise<boolean> {
    try {
      return await this.dedupe.firstTime(dedupeKey);
    } catch (error) {
      throw new NotAcceptedError(`message not taken (store: ${errorMessage(error)})`);
    }
  }

  /** Puts the message in the inbox; when that fails, forgets it was seen, so a redelivery is taken. */
  async #accept(message: InboundMessage, text: string): Promise<string> {
    try {
      return await this.inbox.add(message, text);
    } catch (error) {
      await this.dedupe.forget(message.dedupeKey).catch(() => undefined);
      throw new NotAcceptedError(`message not taken (store: ${errorMessage(error)})`);
    }
  }

  /** Queues the turn of an accepted message (one turn at a time per conversation). */
  #startTurn(adapter: ChannelAdapter, conversation: Conversation, message: InboundMessage, text: string, inboxKey: string, replay?: InboxEntry): void {
    const turn = this.queue.run(message.sessionKey, () => this.#turn(adapter, conversation, message, text, { inboxKey, replay }));
    turn.catch((error: unknown) => this.log(`${message.sessionKey}: turn not run: ${errorMessage(error)}`));
  }

  /** Work that outlives the message's acceptance (command answers, refusals); `stop()` waits for it. */
  #background(work: Promise<unknown>): void {
    const tracked = work.then(
      () => undefined,
      (error: unknown) => this.log(`background work failed: ${errorMessage(error)}`),
    );
    this.#work.add(tracked);
    void tracked.finally(() => this.#work.delete(tracked));
  }

  /** A button press: approvals. */
  async handleAction(adapter: ChannelAdapter, action: ChannelAction): Promise<void> {
    try {
      if (!(await this.dedupe.firstTime(action.dedupeKey))) return;
      const conversation = await this.conversations.peek(action.sessionKey);
      const [verb] = action.data.split(':');
      const known = verb === 'approve' || verb === 'deny' ? conversation : undefined;
      await adapter.answerAction?.(action, answerApproval(known, verb === 'approve', action.sender.id, this.isAdmin(action.address.platform, action.sender.id)));
    } catch (error) {
      this.log(`${action.sessionKey}: button not handled: ${errorMessage(error)}`);
    }
  }

  /**
   * Sends replies recorded but never marked delivered (a crash between answer and delivery),
   * once each. A reply that was being streamed replaces its preview message, as it would have.
   */
  async resendPending(entries?: LedgerEntry[]): Promise<void> {
    for (const entry of entries ?? (await this.ledger.pending())) {
      const adapter = this.adapters.get(entry.address.platform);
      if (!adapter || !(await this.ledger.claim(entry.id))) continue;
      // Pending entries of a version that kept the preview under its own key still find it.
      const previewId = entry.previewId ?? (await this.runtime.store.get<string>(legacyPreviewKey(entry.turnId))) ?? undefined;
      await this.#sender.send(adapter, entry, previewId, { attempts: 1, failure: 'undelivered reply could not be sent after restart' });
    }
  }

  /**
   * Answers messages an earlier process accepted and never answered (it stopped mid-turn), in
   * the order they came, through the usual queue. When the session already holds the message
   * (the turn had begun), the model is asked to answer it rather than given it twice.
   */
  answerInbox(entries: InboxEntry[]): void {
    const oldest = Date.now() - inboxReplayHours * 3_600_000;
    for (const entry of entries) {
      const adapter = this.adapters.get(entry.address.platform);
      if (!adapter || entry.receivedAt < oldest) {
        this.log(`${entry.sessionKey}: message from before the restart not answered (${adapter ? 'too old' : `no ${entry.address.platform} adapter`})`);
        this.#background(this.inbox.done(entry.key));
        continue;
      }
      const message = replayedMessage(entry);
      this.#background(
        this.conversations.get(message).then((conversation) => {
          this.#remember(message);
          this.log(`${entry.sessionKey}: answering a message left unanswered by the last run`);
          this.#startTurn(adapter, conversation, message, entry.text, entry.key, entry);
        }),
      );
    }
  }

  #requiresMention(message: InboundMessage): boolean {
    const group = this.config.groups?.[`${message.address.platform}:${message.address.conversationId}`];
    return group?.requireMention ?? true;
  }


  #whileBusy(conversation: Conversation, text: string): void {
    switch (this.config.busyMode) {
      case 'steer':
        conversation.agent.steer(text);
        break;
      case 'interrupt':
        conversation.agent.abort();
        conversation.agent.followUp(text);
        break;
      default:
        conversation.agent.followUp(text);
    }
  }

  /**
   * One turn: the agent answers `text` (and what arrives meanwhile, as follow-ups), each answer
   * streamed, recorded and delivered. The inbox entries of the messages answered are done once
   * their reply is on record; a failed turn is told to the person and done too.
   */
  async #turn(adapter: ChannelAdapter, conversation: Conversation, message: InboundMessage, text: string, source: TurnSource): Promise<RunOutcome> {
    const { agent } = conversation;
    const address = message.address;
    const job = 'job' in source ? source.job : undefined;
    const inboxKey = 'inboxKey' in source ? source.inboxKey : undefined;
    const replay = 'inboxKey' in source ? source.replay : undefined;
    const replyTo = message.scope === 'group' && !job ? message.id : undefined;
    const deliveries: RunDelivery[] = [];
    let stream = new ReplyStream(adapter, address, { replyTo });
    const typing = keepTyping(adapter, address);
    const unsubscribe = agent.subscribe((event) => {
      if (event.type === 'text_delta') stream.push(event.text);
      if (event.type === 'turn_start') stream.separate();
    });
    /** The messages answered so far: the first reply answers this message, later ones the follow-ups too. */
    const answering = (all: boolean) => [...(inboxKey === undefined ? [] : [inboxKey]), ...(all ? conversation.inboxKeys.splice(0) : [])];
    if (job) conversation.scheduledRun = true;
    conversation.turnSender = message.sender.id;
    try {
      const input = replay ? replayInput((await conversation.agent.session()).buildContext().messages, replay) : job ? text : await this.#input(conversation, message, text);
      const images = replay || job ? [] : await imagesOf(message, this.log);
      const result = await agent.invoke(input, { channel: message.sessionKey, images, turn: await this.#turnContext(conversation, message, job !== undefined) });
      // Aborted turns without text send nothing; files the agent sent go with the last answer.
      const answers = [result, ...result.followUps].map((turn, index) => ({ turn, index })).filter(({ turn }) => !turn.aborted || turn.text);
      const files = answers.length > 0 ? this.outbox.take(message.sessionKey) : [];
      for (const { turn, index } of answers) {
        const previewId = await stream.close();
        const withFiles = index === answers.at(-1)!.index && files.length > 0 ? files : undefined;
        const reply = { text: turn.text || (withFiles ? '' : '(no answer)'), files: withFiles, turnId: `${message.dedupeKey}#${index}`, previewId, replyTo: index === 0 ? replyTo : undefined, answers: answering(index > 0) };
        deliveries.push(await this.#deliver(adapter, conversation, address, reply));
        stream = new ReplyStream(adapter, address);
      }
      return { status: 'ok', delivery: combinedDelivery(deliveries) };
    } catch (error) {
      await stream.close();
      await this.#sendDirect(adapter, address, failureReply(error));
      this.log(`${message.sessionKey}: turn failed: ${errorMessage(error)}`);
      return { status: 'error', error: errorMessage(error) };
    } finally {
      if (job) conversation.scheduledRun = false;
      conversation.turnSender = undefined;
      unsubscribe();
      typing.stop();
      // Files of a turn that failed or was stopped before it answered are not sent.
      await this.outbox.discard(this.outbox.take(message.sessionKey)).catch(() => undefined);
      await this.#answered(answering(true)).catch((error: unknown) => this.log(`${message.sessionKey}: inbox not cleared: ${errorMessage(error)}`));
    }
  }

  /**
   * What the turn's tools know of it: where it is, who asked (for a job: its creator), which tools
   * that person may use there and the workspace they work in.
   */
  async #turnContext(conversation: Conversation, message: InboundMessage, scheduled: boolean): Promise<TurnContext> {
    const { platform, conversationId, threadId } = message.address;
    const admin = this.isAdmin(platform, message.sender.id);
    const seat = { sessionKey: message.sessionKey, platform, scope: message.scope, conversationId, threadId, senderId: message.sender.id, admin };
    const access = await this.#turnAccess.forTurn(seat, conversation.agent.tools, await tempDirectoryOf(this.runtime, conversation));
    return { sessionKey: message.sessionKey, platform, senderId: message.sender.id, senderName: message.sender.name, admin, scheduled, ...access };
  }

  /** Whether `platform:userId` is one of the configured admins. */
  isAdmin(platform: string, userId: string): boolean {
    return this.config.admins.includes(`${platform}:${userId}`);
  }

  /** The model's input for a message: its text, plus where its documents were saved. */
  async #input(conversation: Conversation, message: InboundMessage, text: string): Promise<string> {
    const documents = message.attachments.some((attachment) => attachment.kind === 'file');
    const files = documents ? await saveDocuments(join(await tempDirectoryOf(this.runtime, conversation), keySegment(message.sessionKey)), message, this.log) : [];
    return files.length > 0 ? [text, ...files].filter((part) => part !== '').join('\n') : text;
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
    const id = await this.ledger.record({ sessionKey: conversation.key, address, ...reply, text });
    // From here the ledger answers for the reply: a crash no longer means answering anew.
    await this.#answered(reply.answers);
    if (text.trim() === silentReply) return { status: 'silent' };
    const failure = await this.#sender.send(adapter, { id, sessionKey: conversation.key, address, text, files, replyTo }, previewId, { attempts: 3, failure: 'reply not delivered' });
    return failure === undefined ? { status: 'delivered' } : { status: 'failed', error: failure };
  }

  /** Clears answered messages from the inbox. */
  async #answered(inboxKeys: string[]): Promise<void> {
    await Promise.all(inboxKeys.map((key) => this.inbox.done(key)));
  }

  async #sendDirect(adapter: ChannelAdapter, address: ConversationAddress, text: string): Promise<void> {
    await adapter.send(address, { text }).catch((error: unknown) => this.log(`${address.platform}: could not send: ${errorMessage(error)}`));
  }

  /** Records where the message's conversation lives, in the background (the store is written only when that changed). */
  #remember(message: InboundMessage): void {
    if (this.known.isCurrent(message.sessionKey, message.address, message.scope)) return;
    this.#background(
      this.known.remember(message.sessionKey, message.address, message.scope).catch((error: unknown) => this.log(`${message.sessionKey}: conversation not recorded: ${errorMessage(error)}`)),
    );
  }

  /** What `operator schedule` acts on while this gateway runs (see the control route). */
  scheduleControl(): ScheduleControl {
    return {
      scheduler: this.scheduler,
      findTarget: (address) => findTarget(this.known, address),
      profileFor: (target) => this.conversations.profileFor(target, cliActor.id),
      assertProfile: (name) => this.runtime.assertProfile(name),
    };
  }

  /**
   * Runs one due job: its turn waits for the conversation's queue like a person's message (never
   * inside another turn), then answers in the conversation; resolves to what happened.
   */
  async runJob(job: Job, scheduledFor: number): Promise<RunOutcome> {
    const adapter = this.adapters.get(job.target.address.platform);
    if (!adapter) return { status: 'error', error: `no ${job.target.address.platform} channel is running` };
    const message = scheduledMessage(job, scheduledFor, Date.now());
    this.#remember(message);
    return this.queue.run(message.sessionKey, async () => {
      // Taken in the queue's slot: a /profile while the job waited replaces the live conversation.
      const live = await this.conversations.get(message);
      // A job runs with the profile it was created with, also after the conversation was bound to another.
      const conversation = live.profile === job.profile ? live : await this.conversations.borrow(live, job.profile);
      if (conversation === live) return this.#turn(adapter, conversation, message, message.text, { job });
      live.scheduledRun = true;
      try {
        return await this.#turn(adapter, conversation, message, message.text, { job });
      } finally {
        live.scheduledRun = false;
        conversation.agent.dispose();
      }
    });
  }

  /** Tells a job's conversation (its owner) about the job: repeated failures, a pause. */
  async #notifyOwner(job: Job, text: string): Promise<void> {
    const adapter = this.adapters.get(job.target.address.platform);
    if (!adapter) return;
    await this.#sendDirect(adapter, job.target.address, text);
  }

}

/** What a turn answers: a person's message (from the inbox; `replay` after a restart) or a scheduled job. */
type TurnSource = { inboxKey: string; replay?: InboxEntry } | { job: Job };

/** One delivery status for a run's answers: failed if any failed, silent if all were, else delivered. */
function combinedDelivery(deliveries: RunDelivery[]): RunDelivery | undefined {
  if (deliveries.length === 0) return undefined;
  return deliveries.find((delivery) => delivery.status === 'failed') ?? deliveries.find((delivery) => delivery.status === 'delivered') ?? deliveries[0];
}



/** Where versions before the preview id went into the ledger kept it (read for their pending replies). */
function legacyPreviewKey(turnId: string): string {
  return `ledger-preview:${keySegment(turnId)}`;
}

