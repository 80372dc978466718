/**
 * The gateway: platform events in, agent turns, replies out. The pipeline for each message:
 * dedupe -> access -> group gating -> command -> session queue (busy: follow-up, steer or
 * interrupt) -> agent turn with a streamed reply -> delivery ledger -> adapter. Adapters know
 * nothing of agents; the agent knows nothing of platforms.
 */
import { basename, join } from 'node:path';
import type { ChannelAction, ChannelAdapter, ConversationAddress, InboundMessage } from '../channels/types.ts';
import { errorMessage } from '../core/errors.ts';
import type { Runtime } from '../runtime/runtime.ts';
import { createAccessPolicy, PairingNotifier } from './access/index.ts';
import { handleGroupJoin } from './access/handle-group-join.ts';
import { handleMembership } from './access/handle-membership.ts';
import { ToolGrants } from './access/tool-grants.ts';
import { loadChatGrants } from './access/chat-grants.ts';
import { gatewaySpendGate, spendEvent, type GatewaySpending } from './budget/gateway-spending.ts';
import { configuredBudgets } from './config/budget-schema.ts';
import { denyApprovals, gatewayApprovals, type GatewayApprovals } from './approvals.ts';
import { handleButtonPress } from './button-press.ts';
import { within } from '../core/within.ts';
import { commandList, handleCommand, isGatewayCommand } from './commands.ts';
import { CommandMenus } from './command-menus.ts';
import type { ChatGates } from './pipelines/chat-gates.ts';
import type { ChatPipelines } from './pipelines/chat-pipelines.ts';
import { createGatewayPipelines, startScheduledPipeline } from './pipelines/gateway-pipelines.ts';
import { asSkillTurn, skillCommandOf, skillsFor, suggestedPrompts } from './skill-commands.ts';
import type { GatewayConfig } from './config/index.ts';
import { Conversations, requiresMention, turnText } from './conversations.ts';
import { takeEdit } from './edited-messages.ts';
import { SessionTaints } from './session-taint.ts';
import { createDedupe } from './dedupe.ts';
import { Outbox } from './files/outbox.ts';
import { createSendFileTool, queueFile } from './files/send-file-tool.ts';
import { createInbox, type InboxEntry } from './inbox.ts';
import { readLeftoverWork } from './leftover-work.ts';
import { inboxReplayHours, replayedMessage } from './restart-replay.ts';
import { KnownConversations } from './known-conversations.ts';
import { createDeliveryLedger } from './ledger/index.ts';
import { schedulerSettings } from './schedule-control.ts';
import { createScheduleTool } from './schedule-tool.ts';
import { jobTarget } from './scheduled-turn.ts';
import { fireJob, runJobTurn, type JobRunParts } from './job-runs.ts';
import { Scheduler, type Job, type RunOutcome } from './scheduler/index.ts';
import { ReplySender } from './reply-sender.ts';
import { createSessionQueue } from '../core/session-queue.ts';
import { isStoreFailure } from './store-failure.ts';
import { TurnAccess } from './turn-access.ts';
import { TurnLanes } from './turn-lanes.ts';
import { stillWaiting } from './waiting-messages.ts';
import { TurnRunner } from './turn-runner.ts';
import { Acceptance } from './acceptance.ts';
import { StoreHealth } from './health/store-health.ts';
import { describeJournalDamage, type JournalDamage } from './journal.ts';
import { OpsEvents } from './ops/ops-events.ts';
import { notifyAfterOf } from './config/model-timeout-env.ts';
import { reportChannelStatus, watchAgents } from './ops/gateway-reports.ts';
import { Refusals } from './refusals.ts';

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
  /** Tells people an admin approved that they may talk to the bot now. */
  readonly notifier: PairingNotifier;
  readonly log: GatewayLog;
  /** What happens, for the log, the metrics and the admin console (see `ops/ops-events.ts`). */
  readonly ops: OpsEvents;
  readonly inbox;
  /** Files the agent sends, until their reply is delivered. */
  readonly outbox: Outbox;
  /** Scheduled follow-ups: their turns run here, in their conversations. */
  readonly scheduler: Scheduler;
  /** Where the conversations the gateway has talked in live (for jobs aimed at one). */
  readonly known: KnownConversations;
  /** The platforms' command menus: the gateway's commands and the default profile's skill commands. */
  readonly menus: CommandMenus;
  /** Pipelines run from the chats (`/run`) and their gates. */
  readonly pipelines: ChatPipelines;
  readonly gates: ChatGates;
  /** Approval questions, and the desk their copies in the admins' direct messages answer through. */
  readonly approvals: GatewayApprovals;
  /** Spending caps: the gate every model call goes through, and what is spent (see `budget/`). */
  readonly spending!: GatewaySpending;
  /** Messages not answered: each reported with its reason, told to its sender once an hour (see `refusals.ts`). */
  readonly refusals!: Refusals;
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
  /** What a seat's turn may use (tools, workspace), for commands that act as a turn would (`/undo`). */
  get turnAccess(): TurnAccess {
    return this.#turnAccess;
  }
  readonly #sender: ReplySender;
  readonly #runner: TurnRunner;
  /** Per conversation: messages waiting for a turn, steering, what an interrupted turn left. */
  readonly #lanes = new TurnLanes();
  /** Per conversation, messages are taken in (access, commands, busy mode) in the order they came. */
  readonly #intake = createSessionQueue();
  /** Takes messages in: recorded in the inbox, then marked seen. */
  readonly #acceptance: Acceptance;
  /** Inbox keys answered whose entries the failing store kept: cleared, not answered, when it recovers. */
  readonly #answeredKeys = new Set<string>();
  /** Previews shown for the answers of messages still in flight, by inbox key (the store may have failed to note them). */
  readonly #previews = new Map<string, string>();
  /** Inbox keys this process is answering (queued, running, or carried to the next turn). */
  readonly #active = new Set<string>();
  /** Resolves once turns may begin (the channels are up, earlier replies went out). */
  readonly #opened: Promise<void>;
  #release: () => void = () => {};
  /** Whether the store takes writes; `/healthz` and `/readyz` report it. */
  readonly health: StoreHealth;

  constructor(options: { runtime: Runtime; config: GatewayConfig; adapters: ChannelAdapter[]; log?: GatewayLog; ops?: OpsEvents; localWeb?: boolean; sandboxed?: boolean }) {
    this.runtime = options.runtime;
    this.ops = options.ops ?? new OpsEvents();
    this.localWeb = options.localWeb ?? false;
    this.grants = new ToolGrants({ grants: options.config.tools.grants, localWeb: this.localWeb, sandboxed: options.sandboxed ?? false });
    this.#turnAccess = new TurnAccess({ grants: this.grants, cwd: this.runtime.cwd, home: this.runtime.home, confined: this.runtime.sandbox.kind === 'bubblewrap' });
    this.config = options.config;
    this.adapters = new Map(options.adapters.map((adapter) => [adapter.platform, adapter]));
    // The log subscribes to the events where the gateway runs (see ops/ops-log.ts); a gateway
    // nobody listens to (a test's) writes its reports to stderr as before.
    this.log = options.log ?? ((line) => (this.ops.listened ? this.ops.emit({ type: 'notice', level: 'warn', text: line }) : process.stderr.write(`${line}\n`)));
    // A turn waiting on its model call holds no slot (see core/task-slot.ts): the cap counts turns at work.
    this.queue = createSessionQueue({ maxRunning: this.config.maxConcurrentTurns, maxRunningPerGroup: this.config.maxConcurrentTurnsPerProvider, maxAway: this.config.maxTurnsWaitingOnModel });
    this.health = new StoreHealth({ store: this.runtime.store, log: (line) => this.log(line) });
    const onDamage = (report: JournalDamage) => {
      this.log(`operator: ${describeJournalDamage(report)}`);
      this.health.reportDamage(report);
    };
    this.dedupe = createDedupe(this.runtime.store, { onDamage, log: (line) => this.log(line) });
    // The web chat's policy, unless configured: open while it is the owner's (local), pairing when exposed.
    this.access = createAccessPolicy({ ...this.config, dmPolicy: { ...this.config.dmPolicy, web: this.config.dmPolicy.web ?? (this.localWeb ? 'open' : 'pairing') } }, this.runtime.store);
    this.notifier = new PairingNotifier({ store: this.runtime.store, adapters: this.adapters, refresh: () => this.access.refresh(), log: (line) => this.log(line) });
    this.ledger = createDeliveryLedger(this.runtime.store, { onDamage });
    this.inbox = createInbox(this.runtime.store, { onDamage });
    this.#acceptance = new Acceptance({ inbox: this.inbox, dedupe: this.dedupe, storeFailed: (error, what) => this.#storeFailed(error, what) });
    this.outbox = new Outbox(join(this.runtime.home, 'outbox'));
    this.#sender = new ReplySender({ ledger: this.ledger, outbox: this.outbox, log: (line) => this.log(line), ops: this.ops });
    this.known = new KnownConversations(this.runtime.store);
    this.menus = new CommandMenus({ commands: commandList, skills: async () => (await this.runtime.resources('default')).resources.skills, log: (line) => this.log(line) });
    this.#opened = new Promise((resolve) => (this.#release = resolve));
    this.health.onRecovered(() => this.ops.emit({ type: 'store.recovered' }));
    this.health.onRecovered(() => void this.#resume().catch((error: unknown) => this.log(`messages left by the store failure not resumed: ${errorMessage(error)}`)));
    const files = { outbox: this.outbox, maxFileBytes: (platform: string) => this.adapters.get(platform)?.capabilities.maxFileBytes ?? 0, env: this.runtime.env, files: this.runtime.files };
    const sendFile = createSendFileTool(files);
    this.scheduler = new Scheduler({
      store: this.runtime.store,
      run: (job, scheduledFor) => fireJob(this.#jobParts(), job, scheduledFor),
      // Repeated failures and a pause are told in the job's conversation (its owner's).
      notify: (job, text) => this.#sendDirect(this.adapters.get(job.target.address.platform), job.target.address, text),
      settings: schedulerSettings(this.config.schedule),
      log: (line) => this.log(line),
    });
    const schedule = createScheduleTool({ scheduler: this.scheduler, target: (turn, deliver) => jobTarget(this.conversations, this.known, turn, deliver), jobs: () => this.spending.jobs });
    this.#runner = new TurnRunner({
      runtime: this.runtime,
      inbox: this.inbox,
      ledger: this.ledger,
      outbox: this.outbox,
      attachFile: (turn, path, name) => queueFile(files, turn, path, { label: basename(path), name }),
      sender: this.#sender,
      turnAccess: this.#turnAccess,
      isAdmin: (platform, userId) => this.isAdmin(platform, userId),
      log: (line) => this.log(line),
      turnTimeoutMs: this.config.turnTimeoutSeconds * 1000,
      notifyAfterMs: notifyAfterOf(this.config.modelTimeouts, this.runtime.env),
      stopping: () => this.#stopping,
      storeFailed: (error, what) => this.#storeFailed(error, what),
      answeredButKept: (keys) => keys.forEach((key) => this.#answeredKeys.add(key)),
      previewShown: (key, previewId) => this.#previews.set(key, previewId),
      ops: this.ops,
      taints: new SessionTaints({ store: this.runtime.store, mode: this.config.taint.mode, log: (line) => this.log(line) }),
      spending: () => this.spending,
      transcription: this.config.transcription, refusals: (this.refusals = new Refusals(this.ops)),
    });
    const piped = createGatewayPipelines(this, this.#turnAccess);
    ({ gates: this.gates, pipelines: this.pipelines } = piped);
    this.approvals = gatewayApprovals({ adapters: this.adapters, known: this.known, admins: this.config.admins, access: this.access, settings: this.config.approvals, log: (line) => this.log(line), ops: this.ops, store: this.runtime.store });
    this.conversations = new Conversations({
      runtime: this.runtime,
      tools: [sendFile, schedule, piped.tool],
      approvalTimeoutMs: this.config.approvals.timeoutSeconds * 1000,
      spend: (this.spending = gatewaySpendGate({ store: this.runtime.store, budgets: configuredBudgets(this.config), log: (line) => this.log(line), answerLeft: () => this.queue.drain().then(() => this.#resume()), report: (report) => this.ops.emit(spendEvent(report)), asks: { copies: this.approvals.copies, resubmit: (message) => this.handleMessage(this.adapters.get(message.address.platform)!, message), tell: (address, text) => this.#sendDirect(this.adapters.get(address.platform), address, text) }, models: this.runtime })),
      bindings: () => this.runtime.bindings.bindings(this.config.profiles),
      askApproval: this.approvals.ask,
      watch: watchAgents(this.ops),
    });
  }

  /**
   * Starts every adapter, registers command menus, then finishes what an earlier process left:
   * replies recorded and never delivered go out, then messages accepted and never answered are
   * answered, in the order they came and before anything that arrives now. What is left over is
   * read before any adapter starts, so work this process takes on meanwhile is never mistaken for
   * it (and never done twice).
   */
  async start(options: { warmed?: Promise<void> } = {}): Promise<void> {
    this.health.start();
    await Promise.all([loadChatGrants(this.runtime.store, this.grants), this.spending.load()]);
    const { undelivered, unanswered } = await readLeftoverWork({ ledger: this.ledger, inbox: this.inbox, outbox: this.outbox, log: (line) => this.log(line) });
    // Queued first (their turns wait until the channels are up): they come before anything new.
    const replayed = this.#answerInbox(unanswered);
    for (const adapter of this.adapters.values()) {
      await adapter.start({
        onMessage: (message) => this.handleMessage(adapter, message),
        onAction: (action) => this.handleAction(adapter, action),
        onGroupJoin: (join) => handleGroupJoin({ access: this.access, ops: this.ops, conversations: this.runtime, moved: { scheduler: this.scheduler, grants: this.grants, store: this.runtime.store, bindings: this.runtime.bindings }, log: (line) => this.log(line) }, adapter, join),
        onMembership: (change) => handleMembership({ scheduler: this.scheduler, log: (line) => this.log(line) }, change),
        suggestedPrompts: (conversation, senderId) => suggestedPrompts(this, commandList, conversation, senderId),
        history: (sessionKey) => this.conversations.history(sessionKey),
        recentConversations: (since, limit) => this.known.recent(adapter.platform, since, limit),
        status: reportChannelStatus(this.ops, adapter.platform),
        warmed: options.warmed,
      });
    }
    await this.#sender.resend(undelivered, this.adapters, this.runtime.store);
    await replayed;
    this.#open();
    await this.scheduler.start();
    this.notifier.start();
    // Runs a stopped or crashed process left go on, each saying so in its conversation.
    this.#background(this.pipelines.resumeInterrupted().catch((error: unknown) => this.log(`pipelines not resumed: ${errorMessage(error)}`)));
    const ttlMs = this.config.idleTtlSeconds * 1000;
    this.#sweeper = setInterval(() => void this.conversations.sweep(ttlMs), Math.min(ttlMs, 60_000));
    this.#sweeper.unref();
  }

  /**
   * Registers the platforms' command menus, in the background: called once the gateway is ready,
   * since the menus list the default profile's skills, whose loading would otherwise delay the
   * start (the menu is a convenience; a failure is logged).
   */
  registerMenus(): void {
    this.#background(this.menus.update(this.adapters.values()));
  }

  /**
   * Stops: messages that arrive from now on are recorded and left for the next start; turns in
   * flight get `graceMs` to finish and deliver, then are stopped (their messages are answered
   * after the restart); questions waiting for approval are denied with a note; adapters that do
   * not stop within a few seconds (a platform that is gone) are left behind.
   */
  async stop(options: { graceMs?: number } = {}): Promise<void> {
    this.#stopping = true;
    await this.notifier.stop();
    this.#open();
    clearInterval(this.#sweeper);
    // Nobody answers a question while the gateway stops: denied, with a note.
    for (const { address, text } of denyApprovals(await this.conversations.all())) this.#background(this.#sendDirect(this.adapters.get(address.platform), address, text));
    const graceMs = options.graceMs ?? 25_000;
    // Pipeline runs stop where they are and go on after the next start.
    await this.pipelines.stopAll();
    // No job fires from here on; runs in flight finish (their turns are in the queue).
    const settled = this.scheduler.stop().then(() => this.#settle());
    if (!(await within(settled, graceMs))) {
      this.log(`operator: turns still running after ${Math.round(graceMs / 1000)} s; stopping them (their messages are answered after the restart)`);
      for (const conversation of await this.conversations.all()) conversation.agent.abort();
      if (!(await within(settled, 5_000))) this.log('operator: some work did not stop; exiting anyway');
    }
    await this.spending.book.flush();
    for (const adapter of this.adapters.values()) {
      if (!(await within(adapter.stop().catch(() => undefined), 3_000))) this.log(`${adapter.platform}: did not stop within 3 s; left behind`);
    }
    this.health.stop();
  }

  /** Resolves when no turn is queued or running and no background work is left. */
  async #settle(): Promise<void> {
    // Background work may queue turns and turns may start background work: wait until neither has anything left.
    for (;;) {
      await this.queue.drain();
      if (this.#work.size === 0) break;
      await Promise.all(this.#work);
    }
  }

  /**
   * One message from a platform. Resolves once the message is accepted: seen for the first time
   * and in the inbox; what it asks for follows in the background. Rejects with
   * `NotAcceptedError` only when the message could not be recorded (the store failed), so
   * the adapter leaves it for the platform to deliver again.
   */
  async handleMessage(adapter: ChannelAdapter, message: InboundMessage): Promise<void> {
    // An edit rewords a message still waiting for its turn, or changes nothing; taken after what came before it.
    if (message.edited) return this.config.editedMessages === 'reanswer' ? this.#intake.run(message.sessionKey, () => takeEdit({ lanes: this.#lanes, inbox: this.inbox, log: (line) => this.log(line) }, message)) : undefined;
    if (!(await this.#acceptance.accept(message))) return;
    this.ops.emit({ type: 'message.accepted', platform: message.address.platform, conversation: message.sessionKey, scope: message.scope, ...(message.command && { command: message.command.name }) });
    this.#active.add(message.dedupeKey);
    // While stopping, a message is only recorded: the next start answers it.
    if (this.#stopping) return;
    void this.#admit(adapter, message);
  }

  /** Hands an accepted message to its conversation's intake, where messages are taken in the order they came. */
  #admit(adapter: ChannelAdapter, message: InboundMessage, entry?: InboxEntry): Promise<void> {
    this.#active.add(message.dedupeKey);
    const taken = this.#intake.run(message.sessionKey, () => this.#process(adapter, message, entry));
    this.#background(taken);
    return taken.catch(() => undefined);
  }

  /**
   * What an accepted message asks for: refused, a command, overheard in a group, or a turn (queued
   * behind the conversation's running turn, or taken into it by `busyMode`).
   */
  async #process(adapter: ChannelAdapter, message: InboundMessage, entry: InboxEntry | undefined): Promise<void> {
    const key = message.dedupeKey;
    const finish = async () => {
      this.#active.delete(key);
      await this.inbox.done(key);
    };
    try {
      const access = await this.access.check(message);
      if (!access.allowed) {
        await finish();
        await this.refusals.access(message, access, (text) => this.#sendDirect(adapter, message.address, text));
        return;
      }
      if (isGatewayCommand(message)) {
        // Done before it runs: a crash may lose a command's answer, never run it twice.
        await finish();
        this.#background(handleCommand(this, adapter, message, access.admin));
        return;
      }
      // A user-invocable skill's `/name args`: a turn like any message, whose input runs the skill;
      // addressed to the bot, like the gateway's own commands.
      const skill = message.command ? skillCommandOf(message, await skillsFor(this, message)) : undefined;
      if (message.scope === 'group' && !message.mentioned && !skill && requiresMention(this.config, message)) {
        await this.conversations.overhear(message);
        await finish();
        return;
      }
      const conversation = await this.conversations.get(message);
      this.#remember(message);
      const lane = this.#lanes.get(message.sessionKey);
      const item = { key, message, text: turnText(conversation, skill ? await asSkillTurn(message, skill) : message), entry };
      lane.waiting.add(item);
      // A running turn takes in messages of the person it is for; anyone else's, and any during a
      // scheduled job's turn, get a turn of their own after it: a turn's tools act with one person's rights.
      const running = this.queue.busy(message.sessionKey) && conversation.agent.phase === 'turn' && !conversation.scheduledRun && conversation.turnSender === message.sender.id;
      if (running && !entry && this.config.busyMode === 'steer' && message.attachments.length === 0) lane.steering.offer(conversation.agent, item);
      if (running && !entry && this.config.busyMode === 'interrupt') {
        lane.interrupted = true;
        conversation.agent.abort();
      }
      // Counted against its model provider's share of the slots: a provider that hangs cannot take them all.
      this.#queueTurn(adapter, message.sessionKey, key, conversation.agent.providerName);
    } catch (error) {
      if (isStoreFailure(error)) {
        // Kept in the inbox: answered once the store works again.
        this.#active.delete(key);
        this.#storeFailed(error, `${message.sessionKey}: message not handled`);
        return;
      }
      // Seen but not answerable (its profile cannot load): the person hears why once an hour.
      this.log(`${message.sessionKey}: message not handled: ${errorMessage(error)}`);
      await finish().catch(() => undefined);
      await this.refusals.notHandled(message, (text) => this.#sendDirect(adapter, message.address, text));
    }
  }

  /** Queues the turn of waiting message `key` (one turn at a time per conversation). */
  #queueTurn(adapter: ChannelAdapter, sessionKey: string, key: string, provider: string): void {
    const lane = this.#lanes.get(sessionKey);
    lane.turns++;
    const turn = this.queue.run(sessionKey, async (slot) => {
      await this.#opened;
      // Stopping: what has not begun is answered after the restart.
      if (this.#stopping) return;
      // A message a turn before answered (one it began with after a restart) is left out.
      const batch = await stillWaiting(await lane.waiting.takeNextWhole(true), (key) => this.inbox.has(key).catch(() => true));
      if (!batch) return;
      const carried = [...lane.carried];
      try {
        const conversation = await this.conversations.get(batch[0]!.message);
        await this.#runner.run(adapter, conversation, batch[0]!.message, { batch, lane, slot });
      } finally {
        for (const done of [...carried, ...batch.map((item) => item.key), ...lane.steering.taken]) {
          if (lane.carried.includes(done)) continue;
          this.#active.delete(done);
          // Kept while the message waits in the inbox (its turn was cut short): its next turn finishes that preview.
          if (!(await this.inbox.has(done).catch(() => true))) this.#previews.delete(done);
        }
      }
    }, { group: provider });
    turn
      .catch((error: unknown) => this.log(`${sessionKey}: turn not run: ${errorMessage(error)}`))
      .finally(() => {
        lane.turns--;
        this.#lanes.release(sessionKey);
      });
  }

  /** Lets queued turns begin (once the channels are up and earlier replies went out). */
  readonly #open = (): void => this.#release();

  /** Work that outlives the message's acceptance (command answers, refusals); `stop()` waits for it. */
  #background(work: Promise<unknown>): void {
    const tracked = work.then(
      () => undefined,
      (error: unknown) => this.log(`background work failed: ${errorMessage(error)}`),
    );
    this.#work.add(tracked);
    void tracked.finally(() => this.#work.delete(tracked));
  }

  /** A button press: approvals and pipeline gates (see `button-press.ts`). */
  handleAction(adapter: ChannelAdapter, action: ChannelAction): Promise<void> {
    return handleButtonPress(this, adapter, action);
  }

  /**
   * Answers messages accepted and never answered (the last process stopped before answering, or
   * the store failed under their turns), in the order they came, through the usual pipeline. Each
   * is marked seen again, so a redelivery of it is not taken as new.
   */
  async #answerInbox(entries: InboxEntry[]): Promise<void> {
    const taken: Promise<void>[] = [];
    const oldest = Date.now() - inboxReplayHours * 3_600_000;
    for (const entry of entries) {
      if (this.#active.has(entry.key)) continue;
      const adapter = this.adapters.get(entry.address.platform);
      if (!adapter || entry.receivedAt < oldest) {
        this.log(`${entry.sessionKey}: message from before the restart not answered (${adapter ? 'too old' : `no ${entry.address.platform} adapter`})`);
        this.#background(this.inbox.done(entry.key));
        continue;
      }
      this.#background(this.dedupe.firstTime(entry.dedupeKey));
      this.log(`${entry.sessionKey}: answering a message accepted earlier and not yet answered`);
      const previewId = entry.previewId ?? this.#previews.get(entry.key);
      taken.push(this.#admit(adapter, replayedMessage(entry), previewId === undefined ? entry : { ...entry, previewId }));
    }
    // Resolves once every one waits for its turn: a turn that begins then sees the messages it began with.
    await Promise.all(taken);
  }

  /** The store failed: reported, and once it works again the messages it left waiting are answered. */
  #storeFailed(error: unknown, what: string): void {
    if (this.ops.listened) this.ops.emit({ type: 'store.failed', what, error: errorMessage(error) });
    else this.log(`${what}: store failed: ${errorMessage(error)}`);
    this.health.reportFailure(error, what);
  }

  /** The store works again: messages accepted and left waiting are answered now. */
  async #resume(): Promise<void> {
    if (this.#stopping) return;
    for (const key of this.#answeredKeys) {
      await this.inbox.done(key);
      this.#answeredKeys.delete(key);
    }
    await this.#answerInbox(await this.inbox.pending());
  }

  /** Whether `platform:userId` is an admin: configured, or the owner made by pairing. */
  readonly isAdmin = (platform: string, userId: string): boolean => this.access.isAdmin(platform, userId);

  async #sendDirect(adapter: ChannelAdapter | undefined, address: ConversationAddress, text: string): Promise<void> {
    await adapter?.send(address, { text }).catch((error: unknown) => this.log(`${address.platform}: could not send: ${errorMessage(error)}`));
  }

  /** Records where the message's conversation lives, in the background (the store is written only when that changed). */
  #remember(message: InboundMessage): void {
    if (this.known.isCurrent(message.sessionKey, message.address, message.scope)) return;
    // Written once the turn's model call is under way: a new conversation's file is not on the way to its answer.
    this.#background(new Promise((next) => setImmediate(next)).then(() => this.known.remember(message.sessionKey, message.address, message.scope, message.sentAt)).catch((error: unknown) => this.log(`${message.sessionKey}: conversation not recorded: ${errorMessage(error)}`)));
  }

  /** Runs one due job's turn in its conversation (see `job-runs.ts`); resolves to what happened. */
  runJob(job: Job, scheduledFor: number): Promise<RunOutcome> {
    return runJobTurn(this.#jobParts(), job, scheduledFor);
  }

  #jobParts(): JobRunParts {
    return {
      adapters: this.adapters, queue: this.queue, conversations: this.conversations, runner: this.#runner, ops: this.ops, jobs: this.spending.jobs,
      remember: (message) => this.#remember(message), log: (line) => this.log(line),
      startPipeline: (job, run) => startScheduledPipeline(this, job, run),
    };
  }
}
