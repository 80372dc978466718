/**
 * One conversation on Workers: a Durable Object, the single owner of its state, in its own
 * transactional storage through the project's one `Store`. It takes a platform's message on
 * record (inbox and dedupe, as on Node) before the webhook is answered, and starts answering at
 * once. With the message it stores an alarm, the safety net: stored alarms outlive the object,
 * so a turn cut off when the object is evicted or restarted runs again from the alarm (see
 * `conversation-turn.ts`), and a reply on record is sent once.
 */
import { DurableObject } from 'cloudflare:workers';
import type { Agent } from '../agent/agent.ts';
import type { ChannelAdapter, InboundMessage, MembershipChange } from '../channels/types.ts';
import { createWebChannel, type WebChannel } from '../channels/web/index.ts';
import { keepOverheard, requiresMention, turnText, type OverheardMessage } from '../gateway/conversations.ts';
import { replayedMessage } from '../gateway/restart-replay.ts';
import { sessionHistory } from '../gateway/session-history.ts';
import { errorMessage } from '../core/errors.ts';
import { Acceptance } from '../gateway/acceptance.ts';
import { handleMembership } from '../gateway/access/handle-membership.ts';
import { createDedupe, keySegment } from '../gateway/dedupe.ts';
import { createInbox, type InboxEntry } from '../gateway/inbox.ts';
import { createDeliveryLedger } from '../gateway/ledger/index.ts';
import { ReplySender } from '../gateway/reply-sender.ts';
import { schedulerSettings } from '../gateway/schedule-control.ts';
import { createScheduleTool } from '../gateway/schedule-tool.ts';
import { jobRunId } from '../gateway/job-runs.ts';
import { scheduledMessage } from '../gateway/scheduled-turn.ts';
import { ScheduleError, type Job, type JobTarget, type RunOutcome } from '../gateway/scheduler/index.ts';
import { notifyAfterFromEnv } from '../llm/providers/idle-watch.ts';
import type { Store } from '../store/store.ts';
import { accessObject } from './access-object.ts';
import { resourcesStorage } from './cloudflare-storage.ts';
import { createConversationAgent } from './conversation-agent.ts';
import { ConversationJobs } from './conversation-jobs.ts';
import { defaultProfile, profileChoiceKey, type ProfileChoice } from './conversation-profile.ts';
import { answerWaiting, runTurn, type TurnParts } from './conversation-turn.ts';
import { durableFirst } from './durable-first.ts';
import { takeWorkerEdit } from './edited-entry.ts';
import { createInboundFiles } from './inbound-files.ts';
import { objectStore } from './object-store.ts';
import { replyChannelFor } from './reply-channels.ts';
import { loadWorkerResources, uploadedProfiles } from './resources/index.ts';
import { WorkerResources } from './resources/worker-resources.ts';
import { memoryCommand, memoryViews } from '../gateway/memory-command.ts';
import { fromWireMessage, toWireMessage, type WireMessage } from './wire-message.ts';
import { workerCommand } from './worker-commands.ts';
import { workerConfig } from './worker-config.ts';
import { workerBudgetCommand } from './worker-budget-command.ts';
import { workerSpending, type WorkerSpending } from './worker-spending.ts';
import type { WorkerEnv } from './worker-env.ts';

/** The gateway's parts one conversation keeps, over its object's storage. */
export interface ConversationParts {
  store: Store;
  inbox: ReturnType<typeof createInbox>;
  dedupe: ReturnType<typeof createDedupe>;
  acceptance: Acceptance;
  ledger: ReturnType<typeof createDeliveryLedger>;
}

/** How long the access object's yes is taken as given. */
const admittedMs = 5 * 60_000;

/**
 * How soon the stored alarm wakes the object to answer a message taken, should the instance that
 * took it stop before answering (the turn itself starts at once, see `#wake`).
 */
const safetyNetMs = 30_000;

/** How long a Discord interaction's token is kept: Discord takes answers by it for 15 minutes. */
const interactionTtlSeconds = 15 * 60;

/** The Durable Object class of one conversation. */
export class ConversationObject extends DurableObject<WorkerEnv> {
  #parts: TurnParts | undefined;
  #agent: Promise<Agent> | undefined;
  /** The agent of the job running now, when it was made under another profile than the conversation's (see `#runJob`). */
  #jobAgent: Agent | undefined;
  #jobs: ConversationJobs | undefined;
  /** The web chat of this conversation's browser (web conversations only), made on its first request. */
  #web: WebChannel | undefined;
  /**
   * People the access object let in lately, kept a while in memory: nothing on Workers takes an
   * approval back (there is no command line there), and asking for every message would cost a
   * second object's request per turn.
   */
  readonly #admitted = new Map<string, { admin: boolean; until: number }>();
  /** Replies on record from before this instance (or a failure) were looked for. */
  #caughtUp = false;
  /** The answering running now (one at a time: another call, or the alarm, waits for it). */
  #running: Promise<void> | undefined;
  /** The spending of this conversation's calls (its agents' gate, the notice near a cap), made on first use. */
  #spending: WorkerSpending | undefined;

  /** This conversation's parts, made on first use over the object's storage. */
  get #turnParts(): TurnParts {
    if (!this.#parts) {
      // Its writes do not hold the turn's model request; the webhook's answer and every call to a
      // chat wait until they are durable (`durable-first.ts`).
      const store = objectStore(this.ctx.storage, { unconfirmed: true });
      const log = (line: string) => console.error(line);
      const storeFailed = (error: unknown, what: string) => log(`${what}: ${errorMessage(error)}`);
      const inbox = createInbox(store);
      const dedupe = createDedupe(store);
      const ledger = createDeliveryLedger(store);
      const env = this.env;
      const { config } = workerConfig(env);
      this.#parts = {
        store,
        inbox,
        dedupe,
        ledger,
        acceptance: new Acceptance({ inbox, dedupe, storeFailed }),
        sender: new ReplySender({ ledger, log }),
        taking: new Set(),
        files: createInboundFiles({ env, store, log, durable: () => this.ctx.storage.sync(), spending: (sessionKey) => this.#spendingOf(sessionKey) }),
        // A job made under another profile runs with an agent of its own (see `#runJob`).
        agent: () => (this.#jobAgent ? Promise.resolve(this.#jobAgent) : (this.#agent ??= this.#makeAgent(store))),
        spending: { warning: (turn) => this.#spendingOf(turn.sessionKey).warning(turn) },
        channelFor: async (entry) => {
          const { platform } = entry.address;
          if (platform === 'web') return this.#durableFirst(this.#webChat);
          // Only Discord's messages come with an interaction (kept by `accept`).
          const interaction = platform === 'discord' ? ((await store.get<WireMessage['interaction']>(interactionKey(entry.dedupeKey))) ?? undefined) : undefined;
          return this.#durableFirst(replyChannelFor(platform, env, interaction));
        },
        admit: (entry) => this.#admit(entry),
        command: (entry, admin) =>
          entry.command
            ? workerCommand(entry.command, { admin, scope: entry.scope }, {
                agent: () => this.#turnParts.agent(),
                approve: (code) => accessObject(env).approve(code),
                profile: this.#profileChoice,
                memory: (args) => this.#memory(args, entry, admin),
                budget: (args) => workerBudgetCommand(env, args, { sessionKey: entry.sessionKey, platform: entry.address.platform, senderId: entry.sender.id, admin, scheduled: false }),
              })
            : Promise.resolve(undefined),
        turnTimeoutMs: config.turnTimeoutSeconds * 1000,
        // `OPERATOR_<PROVIDER>_NOTIFY_AFTER_SECONDS`, else `OPERATOR_MODEL_NOTIFY_AFTER_SECONDS`, else 15.
        notifyAfterMs: (provider) => notifyAfterFromEnv(env as unknown as Record<string, string | undefined>, provider),
        log,
      };
    }
    return this.#parts;
  }

  /**
   * Takes `message` on record unless it was seen (a redelivery); resolves to whether it was new.
   * Resolving means it is kept: the webhook may answer 200. A new message wakes the object. An
   * edit (the webhooks hand one over only with `OPERATOR_EDITED_MESSAGES=reanswer`) rewords the
   * message it edits while that still waits (see `edited-entry.ts`); resolves to whether it did.
   */
  async accept(message: WireMessage): Promise<boolean> {
    if (message.edited) {
      const reworded = await takeWorkerEdit(this.#turnParts, fromWireMessage(message));
      await this.ctx.storage.sync();
      return reworded;
    }
    if (message.interaction) await this.#turnParts.store.set(interactionKey(message.dedupeKey), message.interaction, { ttlSeconds: interactionTtlSeconds });
    // Where its files are, which the inbox does not keep: its turn fetches them.
    await this.#turnParts.files.note(message);
    const taken = await this.#take(fromWireMessage(message));
    // On disk before the platform hears it was taken.
    await this.ctx.storage.sync();
    return taken;
  }

  /**
   * The web chat's requests of this conversation's browser (the Worker routed them here by its
   * client id, after the login): its messages, button presses, Stop, history and event stream.
   */
  override async fetch(request: Request): Promise<Response> {
    const { pathname } = new URL(request.url);
    const route = this.#webChat.routes().find((candidate) => candidate.method === request.method && candidate.path === pathname);
    const response = route ? await route.handler(request) : new Response('not found', { status: 404 });
    // A message the browser posted is on disk before it is told so.
    await this.ctx.storage.sync();
    return response;
  }

  /** Takes a message on record (see {@link accept}); `/stop` stops the running turn at once instead. */
  async #take(message: InboundMessage): Promise<boolean> {
    const parts = this.#turnParts;
    if (message.command?.name === 'stop') {
      // As on Node: only the person being answered, or an admin, stops an answer.
      const admin = workerConfig(this.env).config.admins.includes(`${message.address.platform}:${message.sender.id}`);
      if (admin || parts.turnSender === message.sender.id) (this.#jobAgent ?? (await this.#agent))?.abort();
      if (await parts.dedupe.seen(message.dedupeKey)) return false;
      await parts.dedupe.firstTime(message.dedupeKey);
      return true;
    }
    // `/ask TEXT` is how Discord people talk to the bot on Workers (slash commands are all that
    // reach it there): the text is the message.
    if (message.command?.name === 'ask') message = { ...message, text: message.command.args, command: undefined };
    if (message.scope === 'group' && !message.command) {
      // As on Node: in a group the bot answers what is addressed to it; the rest is context.
      if (!message.mentioned && requiresMention(workerConfig(this.env).config, message)) return this.#overhear(message);
      message = { ...message, text: await this.#groupText(message) };
    }
    const accepted = await parts.acceptance.accept(message);
    if (accepted) {
      // The object is named by it; kept so the agent and jobs know whose conversation this is.
      if ((await parts.store.get<JobTarget>(targetKey)) === null) await parts.store.set(targetKey, { sessionKey: message.sessionKey, address: message.address, scope: message.scope } satisfies JobTarget);
      await this.#wake();
    }
    return accepted;
  }

  /** Keeps an unaddressed group message as context for the next addressed one (once per delivery). */
  async #overhear(message: InboundMessage): Promise<boolean> {
    const { dedupe, store } = this.#turnParts;
    if (await dedupe.seen(message.dedupeKey, message.sentAt)) return false;
    const overheard = (await store.get<OverheardMessage[]>(overheardKey)) ?? [];
    keepOverheard(overheard, message);
    await store.set(overheardKey, overheard);
    await dedupe.firstTime(message.dedupeKey);
    return true;
  }

  /** An addressed group message's text as the model gets it: labelled, after what was overheard (taken). */
  async #groupText(message: InboundMessage): Promise<string> {
    const { store } = this.#turnParts;
    const overheard = (await store.get<OverheardMessage[]>(overheardKey)) ?? [];
    const text = turnText({ overheard }, message);
    if (overheard.length === 0) await store.delete(overheardKey);
    return text;
  }

  /** The web chat adapter of this conversation (it holds the browser's event streams). */
  get #webChat(): WebChannel {
    if (!this.#web) {
      const web = createWebChannel({ login: true, log: (line) => console.error(line) });
      void web.start({
        onMessage: async (message) => void (await this.#take(message)),
        // No buttons are offered on Workers (no approvals, no pipeline gates).
        onAction: async () => undefined,
        history: async () => (await this.#targetOf()) === null ? [] : sessionHistory(await (await this.#turnParts.agent()).session()),
      });
      this.#web = web;
    }
    return this.#web;
  }

  /** `adapter` (if any), each of whose calls to a chat waits until the object's writes so far are durable. */
  #durableFirst(adapter: ChannelAdapter | undefined): ChannelAdapter | undefined {
    return adapter && durableFirst(adapter, this.ctx.storage);
  }

  async #targetOf(): Promise<JobTarget | null> {
    return this.#turnParts.store.get<JobTarget>(targetKey);
  }

  /**
   * The bot lost (or, unblocked, got back) its place in this conversation, as the platform said in
   * an event about the bot itself: its jobs here are paused (or resumed), as on Node. Rejects when
   * the storage failed: the webhook answers 503 and the platform delivers it again.
   */
  async membershipChanged(change: Omit<MembershipChange, 'raw'>): Promise<void> {
    await handleMembership({ scheduler: await this.#conversationJobs.scheduler(), log: (line) => console.log(line) }, { ...change, raw: undefined });
    await this.ctx.storage.sync();
  }

  /**
   * Model calls resumed (`/budget resume`): the spend object, which refused this conversation's
   * call while they were paused, wakes it to answer the messages that waited. Resolves once the
   * alarm that answers them should this instance stop first is durable.
   */
  async resumed(): Promise<void> {
    await this.#wake();
    await this.ctx.storage.sync();
  }

  /** The messages waiting for an answer, oldest first. */
  async waiting(): Promise<{ key: string; text: string; sessionKey: string }[]> {
    return (await this.#turnParts.inbox.pending()).map((entry) => ({ key: entry.dedupeKey, text: entry.text, sessionKey: entry.sessionKey }));
  }

  /**
   * The stored alarm: a job is due, or the safety net of messages taken (see `#wake`). The
   * platform runs an alarm at least once: one whose handler failed or was cut off (the object
   * evicted or restarted mid-turn) runs again, and so a turn goes on from where it began. When
   * this instance is still answering, the alarm waits for that turn, then finds nothing left.
   */
  override async alarm(): Promise<void> {
    try {
      await this.#drain();
    } catch (error) {
      // Said, then thrown: the platform runs the alarm again (with back-off), nothing is lost.
      console.error(`conversation: answering failed, to be tried again: ${errorMessage(error)}`);
      throw error;
    }
  }

  /**
   * Runs what is due: jobs, replies on record not yet sent, then the waiting messages, one turn
   * at a time (a second call waits for the first, then looks again).
   */
  async #drain(): Promise<void> {
    // Its failure is its own caller's to report; this one looks again afterwards.
    while (this.#running) await this.#running.catch(() => undefined);
    const running = this.#answer();
    this.#running = running;
    await running;
  }

  /**
   * One round of {@link #drain}. It lets go of `#running` before it settles, so a caller waiting
   * for it finds it gone on waking (a settled one still set would have it spin, starving the I/O
   * the round is waiting for).
   */
  async #answer(): Promise<void> {
    // Replies on record are looked for once per life of the object, and again after a failure:
    // otherwise every reply this instance recorded was sent or given up by its own turn.
    const resend = !this.#caughtUp;
    try {
      await this.#conversationJobs.fireDue();
      await answerWaiting(this.#turnParts, { resend });
      await this.#settle();
      // Done once what it wrote is durable (an alarm whose handler returned is not run again).
      await this.ctx.storage.sync();
      this.#caughtUp = true;
    } catch (error) {
      this.#caughtUp = false;
      throw error;
    } finally {
      this.#running = undefined;
    }
  }

  /**
   * Brings the alarm forward to the next job, if any. (An alarm that ran is gone once its
   * handler returns; a message taken meanwhile set a new one, as `getAlarm` reads none while an
   * alarm runs.)
   */
  async #settle(): Promise<void> {
    const next = this.#conversationJobs.nextAt;
    if (next === undefined) return;
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > next) await this.ctx.storage.setAlarm(next);
  }

  /** This conversation's scheduled jobs (the scheduler starts on first use). */
  get #conversationJobs(): ConversationJobs {
    this.#jobs ??= new ConversationJobs({
      store: this.#turnParts.store,
      storage: this.ctx.storage,
      run: (job, scheduledFor) => this.#runJob(job, scheduledFor),
      notify: async (job, text) => {
        const adapter = this.#durableFirst(replyChannelFor(job.target.address.platform, this.env));
        await adapter?.send(job.target.address, { text });
      },
      settings: schedulerSettings(workerConfig(this.env).config.schedule),
      log: (line) => console.log(line),
    });
    return this.#jobs;
  }

  /** A job's turn: its prompt as a message from its creator, answered in this conversation. */
  async #runJob(job: Job, scheduledFor: number): Promise<RunOutcome> {
    const message = scheduledMessage(job, scheduledFor, Date.now());
    const entry: InboxEntry = { key: message.dedupeKey, dedupeKey: message.dedupeKey, sessionKey: message.sessionKey, address: message.address, scope: message.scope, messageId: message.id, sender: message.sender, text: message.text, attachments: [], receivedAt: message.receivedAt };
    const parts = this.#turnParts;
    const adapter = await parts.channelFor(entry);
    if (!adapter) return { status: 'error', error: `no credentials for ${entry.address.platform}` };
    // Its run counts for the job's caps (budgets.job), named by its due time as on Node.
    const run = () => runTurn(parts, adapter, [{ entry, admin: false }], { scheduled: true, job: { id: job.id, run: jobRunId(scheduledFor) } });
    // As on Node: a job runs with the profile it was made with, also after the conversation chose
    // another; an agent of its own, over the same session, for its one turn (turns run one at a time).
    if (job.profile === (await this.#profileChoice.current())) return run();
    const agent = await this.#makeAgent(parts.store, job.profile);
    this.#jobAgent = agent;
    try {
      return await run();
    } finally {
      this.#jobAgent = undefined;
      agent.dispose();
      // The conversation's agent knew the session as it was before the job's turn: made again.
      this.#agent = undefined;
    }
  }

  /**
   * Answers what was just taken, at once, in this call's wake; with the stored alarm as the safety
   * net: set (unless one is due sooner) in the same commit as the message, it wakes the object
   * to answer if this instance stops first (evicted, restarted, or the turn failed). The alarm
   * left behind by a turn that ended well runs once, finds nothing, and lets the object sleep;
   * messages within {@link safetyNetMs} of it need no alarm written of their own.
   */
  async #wake(): Promise<void> {
    const due = Date.now() + safetyNetMs;
    const alarm = await this.ctx.storage.getAlarm();
    // Unconfirmed like the message's own writes: `accept` waits for both before it answers.
    if (alarm === null || alarm > due) await this.ctx.storage.setAlarm(due, { allowUnconfirmed: true });
    void this.#drain().catch((error: unknown) => console.error(`conversation: answering failed, to be tried again by the alarm: ${errorMessage(error)}`));
  }

  /** Asks the bot's access object about `entry` (its message as it was kept). */
  async #admit(entry: InboxEntry): Promise<{ allowed: boolean; admin: boolean; reply?: string }> {
    // A configured admin is one whatever the pairing book says: no need to ask the access object.
    if (workerConfig(this.env).config.admins.includes(`${entry.address.platform}:${entry.sender.id}`)) return { allowed: true, admin: true };
    const key = `${entry.address.platform}:${entry.sender.id}`;
    const known = this.#admitted.get(key);
    if (known && known.until > Date.now()) return { allowed: true, admin: known.admin };
    const decision = await accessObject(this.env).check(toWireMessage(replayedMessage(entry)));
    if (!decision.allowed) return { allowed: false, admin: false, ...(decision.reply !== undefined && { reply: decision.reply }) };
    this.#admitted.set(key, { admin: decision.admin, until: Date.now() + admittedMs });
    return { allowed: true, admin: decision.admin };
  }

  /**
   * `/memory ARGS` from `entry`'s sender (see `src/gateway/memory-command.ts`): an admin's own
   * direct conversation is the owner's seat (the profile's memory), as for a turn there.
   */
  async #memory(args: string, entry: InboxEntry, admin: boolean): Promise<string> {
    const resources = (await this.#turnParts.agent()).options.resources;
    if (!(resources instanceof WorkerResources)) return 'Memory is not kept here.';
    const { profile, place } = resources.memoryPlaces;
    const person = `${entry.address.platform}:${entry.sender.id}`;
    const direct = entry.scope === 'dm';
    const views = memoryViews({ owner: direct && admin, admin, direct, sessionKey: entry.sessionKey, person, profile, place });
    return memoryCommand(args, views, { person, name: entry.sender.name, conversation: entry.sessionKey, direct });
  }

  /** The conversation's profile (see `conversation-profile.ts`): a new choice makes a new agent, over the same session. */
  get #profileChoice(): ProfileChoice {
    const { store } = this.#turnParts;
    return {
      current: async () => (await store.get<string>(profileChoiceKey)) ?? defaultProfile,
      uploaded: async () => {
        const resources = resourcesStorage(this.env);
        return resources ? uploadedProfiles(resources) : [defaultProfile];
      },
      choose: async (name) => {
        await store.set(profileChoiceKey, name);
        // Commands run between turns: no turn is using the agent now.
        this.#agent = undefined;
      },
    };
  }

  /** The conversation's agent, with `profile` (the conversation's own unless given). */
  async #makeAgent(store: Store, profile?: string): Promise<Agent> {
    const own = await store.get<JobTarget>(targetKey);
    if (own === null) throw new Error('this conversation has had no message yet');
    profile ??= await this.#profileChoice.current();
    const schedule = createScheduleTool({
      scheduler: await this.#conversationJobs.scheduler(),
      target: async (_turn, deliver) => {
        // One object owns one conversation's jobs: a job elsewhere would be another object's.
        if (deliver !== undefined && deliver.trim() !== '' && deliver.trim() !== 'origin') throw new ScheduleError('invalid', 'on Workers a job runs in the conversation that made it (deliver: origin)');
        return { target: own, profile };
      },
    });
    const kv = resourcesStorage(this.env);
    const resources = kv ? (await loadWorkerResources(kv, profile, { env: this.env })).resources : undefined;
    return createConversationAgent({ env: this.env, store, sessionKey: own.sessionKey, tools: [schedule], resources, spend: this.#spendingOf(own.sessionKey) });
  }

  /** The spending of this conversation (`sessionKey`: its own, the object's name). */
  #spendingOf(sessionKey: string): WorkerSpending {
    return (this.#spending ??= workerSpending(this.env, sessionKey));
  }
}

/** Where a group's unaddressed messages wait, as context for the next addressed one. */
const overheardKey = 'conversation:overheard';

/** Where the conversation's session key and address are kept. */
const targetKey = 'conversation:target';

/** Where the interaction a message came with is kept. */
function interactionKey(dedupeKey: string): string {
  return `interaction:${keySegment(dedupeKey)}`;
}
