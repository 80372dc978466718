/**
 * Live conversations: one Agent per session key, created on the first message with the profile
 * the bindings choose, and dropped after a quiet spell (the session stays in the store and comes
 * back on the next message). Unmentioned group messages are kept as bounded recent context.
 */
import type { Agent } from '../agent/agent.ts';
import type { ApprovalRequest } from '../agent/agent-options.ts';
import type { InboundMessage } from '../channels/types.ts';
import type { ProfileBindings } from '../resources/profile-binding.ts';
import { resolveProfile } from '../resources/profile-binding.ts';
import type { Runtime } from '../runtime/runtime.ts';
import type { Tool } from '../tools/tool.ts';
import { keySegment } from './dedupe.ts';

/** A message seen in a group without being addressed to the bot. */
export interface OverheardMessage {
  sender: string;
  text: string;
}

/** One live conversation. */
export interface Conversation {
  key: string;
  agent: Agent;
  profile: string;
  /** Recent unaddressed group messages, oldest first (bounded). */
  overheard: OverheardMessage[];
  /** Inbox keys of messages taken in as follow-ups or steering by the running turn. */
  inboxKeys: string[];
  /** A scheduled job's turn is running: a person's message then waits for its own turn. */
  scheduledRun?: boolean;
  /** The approval question waiting for `/approve` or `/deny`, if any. */
  pendingApproval?: { request: ApprovalRequest; resolve: (allowed: boolean) => void };
  lastActive: number;
}

/** How many overheard messages a group keeps, and how long each may be. */
const overheardLimit = 20;
const overheardChars = 500;

/** The live conversations of a gateway. */
export class Conversations {
  #runtime: Runtime;
  #bindings: () => Promise<ProfileBindings>;
  #live = new Map<string, Promise<Conversation>>();
  #askApproval: (conversation: Conversation, request: ApprovalRequest) => Promise<boolean>;
  #now: () => number;
  #tools: readonly Tool[];

  constructor(options: {
    runtime: Runtime;
    /** Tools the gateway adds to every conversation's agent (`send_file`, `schedule`). */
    tools?: readonly Tool[];
    bindings: () => Promise<ProfileBindings>;
    askApproval: (conversation: Conversation, request: ApprovalRequest) => Promise<boolean>;
    now?: () => number;
  }) {
    this.#runtime = options.runtime;
    this.#bindings = options.bindings;
    this.#askApproval = options.askApproval;
    this.#now = options.now ?? Date.now;
    this.#tools = options.tools ?? [];
  }

  /** Number of conversations in memory. */
  get size(): number {
    return this.#live.size;
  }

  /** The conversation of `message`, created (with its profile) if it is not in memory. */
  get(message: InboundMessage): Promise<Conversation> {
    let conversation = this.#live.get(message.sessionKey);
    if (!conversation) {
      conversation = this.#create(message);
      this.#live.set(message.sessionKey, conversation);
      conversation.catch(() => this.#live.delete(message.sessionKey));
    }
    return conversation.then((live) => {
      live.lastActive = this.#now();
      return live;
    });
  }

  /** The conversation if it is in memory. */
  peek(key: string): Promise<Conversation> | undefined {
    return this.#live.get(key);
  }

  /** Drops the conversation from memory (its session stays stored), e.g. to switch its profile. */
  async forget(key: string): Promise<void> {
    const conversation = await this.#live.get(key)?.catch(() => undefined);
    this.#live.delete(key);
    conversation?.agent.dispose();
    this.#runtime.sessions.evict(key);
  }

  /** Drops idle conversations older than `ttlMs` that are not working. Returns how many. */
  async sweep(ttlMs: number): Promise<number> {
    let dropped = 0;
    for (const [key, pending] of this.#live) {
      const conversation = await pending.catch(() => undefined);
      if (!conversation) continue;
      if (conversation.agent.phase !== 'idle' || conversation.pendingApproval) continue;
      if (this.#now() - conversation.lastActive < ttlMs) continue;
      await this.forget(key);
      dropped++;
    }
    return dropped;
  }

  /** Keeps an unaddressed group message as context for the next addressed one. */
  async overhear(message: InboundMessage): Promise<void> {
    const conversation = await this.get(message);
    conversation.overheard.push({ sender: senderLabel(message), text: message.text.slice(0, overheardChars) });
    if (conversation.overheard.length > overheardLimit) conversation.overheard.shift();
  }

  async #create(message: InboundMessage): Promise<Conversation> {
    const { profile } = resolveProfile(
      {
        platform: message.address.platform,
        conversationId: message.address.conversationId,
        threadId: message.address.threadId,
        senderId: message.sender.id,
        isDirect: message.scope === 'dm',
      },
      await this.#bindings(),
    );
    const conversation = { key: message.sessionKey, profile, overheard: [], inboxKeys: [], lastActive: this.#now() } as unknown as Conversation;
    const model = (await this.#runtime.store.get<string>(modelChoiceKey(message.sessionKey))) ?? undefined;
    const { agent } = await this.#runtime.createAgent({
      sessionKey: message.sessionKey,
      profile,
      model,
      tools: this.#tools,
      requestApproval: (request) => this.#askApproval(conversation, request),
    });
    conversation.agent = agent;
    return conversation;
  }
}

/** `Ada (@ada)`: how a group message's sender is named to the model. */
export function senderLabel(message: InboundMessage): string {
  const name = message.sender.name ?? message.sender.username ?? message.sender.id;
  return message.sender.username && message.sender.name ? `${name} (@${message.sender.username})` : name;
}

/** Store key of a conversation's own model choice (`/model`). */
export function modelChoiceKey(sessionKey: string): string {
  return `model-choice:${keySegment(sessionKey)}`;
}
