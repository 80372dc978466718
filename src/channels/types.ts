/**
 * The neutral channel contract. An adapter turns a platform's events (grammy, discord.js, bolt,
 * the web chat) into {@link InboundMessage}s and {@link ChannelAction}s, and {@link OutboundMessage}s
 * into platform calls. Adapters know nothing of agents or models (a lint rule keeps it so); the
 * gateway knows nothing of platform SDKs.
 */
export { DeliveryError, NotAcceptedError } from './delivery-errors.ts';

/** Where a message lives. */
export interface ConversationAddress {
  /** `telegram`, `discord`, `slack`, `web`. */
  platform: string;
  /** The chat / channel id on the platform (as a string). */
  conversationId: string;
  /** A thread or forum topic inside the conversation. */
  threadId?: string;
}

/** Who sent a message. */
export interface Sender {
  /** Platform user id (as a string). */
  id: string;
  /** Display name. */
  name?: string;
  username?: string;
  isBot?: boolean;
}

/**
 * The group an admin approves for a group conversation (see `groupPolicy`): a Telegram group, a
 * Slack channel, a Discord server. Named `<platform>:<kind>:<id>`, e.g. `telegram:group:-1001234`,
 * `slack:channel:C0123`, `discord:guild:8123`.
 */
export interface GroupRef {
  /** `group` (Telegram), `channel` (Slack), `guild` (a Discord server). */
  kind: 'group' | 'channel' | 'guild';
  /** The platform's id of it. */
  id: string;
  /** Its name, when the platform says (shown to admins). */
  title?: string;
}

/**
 * The bot was added to a group, or made one of its administrators. Platforms that name who did it
 * (Telegram's `my_chat_member`, Slack's `member_joined_channel` with an `inviter`) give `by`: an
 * admin there approves the group at once.
 */
export interface GroupJoin {
  /** Unique per platform delivery: redelivery has the same key. */
  dedupeKey: string;
  /** The conversation the bot joined (where a pairing code would be told). */
  address: ConversationAddress;
  sessionKey: string;
  group: GroupRef;
  /** Who added the bot; absent when the platform does not say. */
  by?: Sender;
  /**
   * The group this one took the place of (a Telegram group upgraded to a supergroup, which gets a
   * new id): an approval of that group carries over. Only the platform says so, never a person.
   */
  movedFrom?: GroupRef;
  /** With `movedFrom`: the session key that group's conversation had, which goes on here. */
  movedFromSessionKey?: string;
  /** The platform's own object, for debugging only. */
  raw: unknown;
}

/**
 * The bot's own place in a conversation changed, as the platform says in an event about the bot
 * itself (never a message a person sends): it was removed from a group or channel, or a person
 * blocked it in their direct chat, or unblocked it again.
 */
export interface MembershipChange {
  /** Unique per platform delivery: redelivery has the same key. */
  dedupeKey: string;
  platform: string;
  /** `removed`: from a group, channel or server; `blocked` / `unblocked`: in a direct chat. */
  kind: 'removed' | 'blocked' | 'unblocked';
  /** The conversations it concerns (a Telegram chat, a Slack channel, a Discord server's channels). */
  conversationIds: string[];
  /** Names the place for the log (`telegram:group:-1001`, `discord:guild:81`); never message text. */
  label: string;
  /** The platform's own object, for debugging only. */
  raw: unknown;
}

/** A file or image that came with a message. */
export interface Attachment {
  kind: 'image' | 'file';
  /** e.g. `image/jpeg`, `application/pdf`. */
  mediaType: string;
  name?: string;
  /** Size in bytes, when the platform says: checked against a limit before any download. */
  size?: number;
  /**
   * Sound a person recorded or sent (a voice note, an audio file, a round video note), which the
   * gateway transcribes for the model when transcription is on; `seconds` is its length when the
   * platform says (checked against a limit before any download). Any `audio/*` file counts as
   * `audio` even without it.
   */
  recording?: Recording;
  /**
   * Downloads the content, reading at most `maxBytes` (default `maxInboundFileBytes`, 20 MB, of
   * `capped-bytes.ts`): a larger file fails with a `FileTooLargeError` before it is held whole;
   * other failures are {@link DeliveryError}-like.
   */
  download(options?: { maxBytes?: number }): Promise<Uint8Array>;
}

/** What kind of sound an {@link Attachment} is, and how long. */
export interface Recording {
  kind: 'voice' | 'audio' | 'video note';
  /** Length in seconds, when the platform says. */
  seconds?: number;
}

/** A message a person sent. */
export interface InboundMessage {
  /** Platform message id, unique within the conversation. */
  id: string;
  /** Unique per platform delivery (update id, event id): redelivery has the same key. */
  dedupeKey: string;
  /**
   * The conversation's session key, made by the adapter:
   * `<platform>:<scope>:<id>[:<thread>]`, e.g. `telegram:group:-1001:topic:17`, `telegram:dm:42`.
   */
  sessionKey: string;
  address: ConversationAddress;
  /** A one-to-one conversation with the sender, or a group / channel. */
  scope: 'dm' | 'group';
  /**
   * In a group conversation, the group an admin approves (a Discord channel's server, say).
   * Absent: the conversation itself, `<platform>:group:<conversationId>`.
   */
  group?: GroupRef;
  sender: Sender;
  text: string;
  attachments: Attachment[];
  /** The bot was mentioned, or the message replies to the bot. */
  mentioned: boolean;
  /**
   * Set on each part of what a person sent as one (Telegram's album of photos): parts with the
   * same id are answered in one turn.
   */
  albumId?: string;
  /**
   * A new version of message `id`, edited by its sender (handed over only where the gateway asks
   * for edits: `editedMessages`). Never a command.
   */
  edited?: true;
  replyTo?: { id: string; fromBot: boolean; text?: string };
  /** A `/command args` message (the bot-name suffix of `/cmd@bot` removed). */
  command?: { name: string; args: string };
  /**
   * The profile the sender asked for with this message (the OpenAI-compatible API's `model`; the
   * adapter checked it exists). The conversation answers with it from this message on, as after
   * `/profile`; absent, the bindings choose as usual.
   */
  profile?: string;
  /** Milliseconds since the epoch. */
  receivedAt: number;
  /**
   * When the platform says the message was sent, in milliseconds since the epoch (Telegram's
   * `date`, Slack's `ts`, Discord's `timestamp`); absent where the platform gives none (the web
   * chat, the terminal, Slack slash commands). Dedupe uses it after its journal lost records.
   */
  sentAt?: number;
  /** The platform's own object, for debugging only. */
  raw: unknown;
}

/** A button press (callback query, component interaction, block action). */
export interface ChannelAction {
  /** Platform id of the interaction (answered with `answerAction`). */
  id: string;
  dedupeKey: string;
  sessionKey: string;
  address: ConversationAddress;
  sender: Sender;
  /** The `data` of the pressed {@link Button}. */
  data: string;
  /** The message the button belongs to. */
  messageId?: string;
  raw: unknown;
}

/** A button under a message. */
export interface Button {
  label: string;
  /** Returned in {@link ChannelAction.data}; at most 64 bytes. */
  data: string;
}

/**
 * A file the gateway sends. The adapter reads it from `path` when sending; the gateway keeps
 * the file there (a copy of its own) until the message is delivered or given up.
 */
export interface OutboundFile {
  /** Absolute path of the file to read. */
  path: string;
  /** The name the chat shows (already safe: no folders). */
  name: string;
  /** e.g. `application/pdf`, `image/png`. */
  mediaType: string;
  /** Size in bytes. */
  size: number;
}

/**
 * What the gateway sends. `text` is Markdown; the adapter renders it for its platform.
 *
 * A message is sent as parts: first the text's chunks, then one part per file, in order.
 * `skipParts`, {@link SentMessage.ids} and {@link DeliveryError.delivered} count the same
 * parts, so a retry after a failed upload sends only what did not arrive.
 */
export interface OutboundMessage {
  /** May be empty when `files` are given (the files go alone). */
  text: string;
  /**
   * Files sent after the text, one part each (never more than `capabilities.maxFileBytes` each;
   * an adapter refuses a larger one with a non-retryable {@link DeliveryError}).
   */
  files?: OutboundFile[];
  /** Rows of buttons (when the platform has them). */
  buttons?: Button[][];
  /** Reply to this platform message id. */
  replyTo?: string;
  /**
   * The id of one of the bot's own messages (a streamed preview) that becomes the first part of
   * this one, by an edit, instead of a new message. Where it cannot be edited any more (deleted,
   * too old), the first part goes out as a new message. Platforms without edits ignore it.
   */
  replace?: string;
  /**
   * This is a streamed reply's preview (a send or an edit): `text` is the answer so far followed by
   * ` ` and {@link previewMarker}. An adapter that streams natively (Slack's `chat.appendStream`)
   * shows the answer so far without the marker; the others show `text` as it is.
   */
  preview?: boolean;
  /**
   * With `preview`: a note shown below the answer so far (or alone, before any), which is not part
   * of the answer and goes once more of it arrives (the model provider is slow). `text` holds it,
   * after a blank line; an adapter that streams the answer itself leaves it out of the answer.
   */
  notice?: string;
  /**
   * Parts (chunks) an earlier attempt already delivered, from {@link DeliveryError.delivered}:
   * only the parts after them are sent, so a retry never repeats what arrived.
   */
  skipParts?: number;
  /**
   * Called after each part is delivered, with the ids of the parts this call delivered so far and
   * how many parts the message has (skipped ones included): a long reply's progress can be noted
   * part by part, so a restart sends only what did not arrive.
   */
  onPart?(delivered: readonly string[], parts: number): void;
  /**
   * The same for every attempt at this message, in any process (a ledger entry's id, a turn's
   * preview). A platform that can make a send idempotent with it (Discord's `enforce_nonce`)
   * creates each part once and hands back the one it made before: a process killed after the
   * platform took a message, before it heard its id, is then not left with a second copy.
   */
  idempotencyKey?: string;
  /**
   * The message asks the person to approve this tool call (its buttons answer). An adapter that
   * can show the call itself (the web chat's card) does; the others send `text`, which says it too.
   */
  approval?: ApprovalPrompt;
}

/** A tool call waiting for a person's approval, as the question about it shows it. */
export interface ApprovalPrompt {
  /** The tool's name (`shell`, `write_file`). */
  tool: string;
  /** The call's arguments, as the model gave them. */
  arguments: Readonly<Record<string, unknown>>;
  /** Why the guardrail asks. */
  reason: string;
}

/** What ends a streamed reply's preview while its answer is still coming (see {@link OutboundMessage.preview}). */
export const previewMarker = '…';

/** The platform ids of what was sent: one per chunk when a long message was split. */
export interface SentMessage {
  ids: string[];
}

/** What a platform can do. */
export interface ChannelCapabilities {
  /** Messages can be edited (streaming by edits). */
  edit: boolean;
  /** A typing indicator exists. */
  typing: boolean;
  buttons: boolean;
  threads: boolean;
  /** Longest message, in characters, after rendering. */
  maxLength: number;
  /** Smallest sensible interval between two edits of one message, in ms. */
  editIntervalMs: number;
  /** A native command menu exists (`setCommands`). */
  commandMenu: boolean;
  /** Largest file the bot may send, in bytes; 0 when the platform takes no files from bots. */
  maxFileBytes: number;
}

/**
 * Streaming by drafts (Telegram's `sendMessageDraft` in private chats): the answer grows in an
 * ephemeral draft the platform shows instead of a message, and ends as one new message (the
 * ledger's), so a reply costs no edits and a crash leaves nothing half-finished behind.
 */
export interface DraftStreaming {
  /** Smallest sensible interval between two drafts of one reply, in ms. */
  readonly intervalMs: number;
  /**
   * Whether drafts are worth trying in `address` now: false outside direct chats, when turned
   * off, and once the platform refused them for this bot (it streams by edits from then on).
   */
  available(address: ConversationAddress): boolean;
  /**
   * Shows `text` (Markdown; empty shows the platform's "thinking" placeholder) as the draft
   * `draftId` (non-zero, the same for one reply). Resolves false when the platform refused drafts
   * (the caller streams by edits instead); throws when this one draft failed (the next may work).
   */
  show(address: ConversationAddress, draftId: number, text: string): Promise<boolean>;
}

/**
 * A small key-value memory an adapter keeps across restarts (the gateway hands it in over its
 * store, each platform under a prefix of its own): what the adapter learned about its platform
 * that a new process should not have to learn again, such as a server's refusal of a method. Keys
 * are any text (the gateway makes them safe for its store); values are short strings.
 */
export interface ChannelMemory {
  /** The value at `key`, or undefined (none, or expired). */
  get(key: string): Promise<string | undefined>;
  /** Keeps `value` at `key`, forgotten after `ttlSeconds` when given. */
  set(key: string, value: string, options?: { ttlSeconds?: number }): Promise<void>;
  /** Forgets `key` (nothing there: nothing happens). */
  delete(key: string): Promise<void>;
}

/** A chat command for the platform's menu. */
export interface CommandInfo {
  name: string;
  description: string;
}

/** A prompt a chat offers a person to begin a conversation with (Slack's assistant threads). */
export interface SuggestedPrompt {
  /** What the button says. */
  title: string;
  /** What is sent as the person's message when they pick it. */
  message: string;
}

/** What the gateway gives an adapter when starting it. */
export interface ChannelHandlers {
  /**
   * Takes a message. Resolves once the gateway has it on record (the answer follows later);
   * only then may the adapter acknowledge the delivery to the platform (answer the webhook,
   * advance the poll offset). Rejects when the gateway could not take it now (see
   * {@link NotAcceptedError}): the adapter must then leave it unacknowledged so the platform
   * delivers it again, or tell the sender to retry where the platform cannot redeliver.
   */
  onMessage(message: InboundMessage): Promise<void>;
  onAction(action: ChannelAction): Promise<void>;
  /**
   * The bot was added to a group (see {@link GroupJoin}). Resolves once the gateway has dealt with
   * it; rejects with {@link NotAcceptedError} when it could not (deliver it again if the platform can).
   */
  onGroupJoin?(join: GroupJoin): Promise<void>;
  /**
   * The bot was removed from a group or blocked (or unblocked) in a direct chat (see
   * {@link MembershipChange}). Resolves once the gateway has dealt with it; rejects with
   * {@link NotAcceptedError} when it could not (deliver it again if the platform can).
   */
  onMembership?(change: MembershipChange): Promise<void>;
  /**
   * Prompts to offer in a conversation a person just opened (a Slack assistant thread), from the
   * profile that conversation uses; the adapter shows as many as its platform takes.
   */
  suggestedPrompts?(conversation: ConversationRef, senderId: string): Promise<SuggestedPrompt[]>;
  /** Earlier messages of a conversation, oldest first (the web chat shows them on reload). */
  history?(sessionKey: string): Promise<{ role: 'user' | 'assistant'; text: string }[]>;
  /**
   * The conversations of the adapter's platform that had a message since `since` (ms since the
   * epoch), the most recent first, at most `limit`. An adapter whose platform never delivers a
   * message again (Discord) reads their history for messages sent while it was not connected.
   */
  recentConversations?(since: number, limit: number): Promise<ConversationRef[]>;
  /**
   * Told when the connection to the platform drops and comes back, when the platform answers
   * with a rate limit (429), and when handling one of its events threw: for the log and the
   * metrics. Never given message content.
   */
  status?(status: ChannelStatus): void;
  /**
   * Resolves once the gateway has loaded what its first answers need (see `warm-gate.ts`). A
   * channel that asks its platform for messages asks after it; absent, at once.
   */
  warmed?: Promise<void>;
}

/** What an adapter reports about its link to the platform (see {@link ChannelHandlers.status}). */
export type ChannelStatus =
  /** The connection (websocket, long poll) was lost; `reason` says how, without secrets. */
  | { kind: 'disconnected'; reason: string }
  /** It works again after a `disconnected`. */
  | { kind: 'reconnected' }
  /** The platform asked to wait `retryAfterMs` before calling again. */
  | { kind: 'rate_limited'; retryAfterMs: number }
  /**
   * Handling the platform's event `event` threw (in the SDK or a handler) and was stopped at the
   * adapter's boundary; the adapter goes on. `error` is described without payload text.
   */
  | { kind: 'outside_error'; event: string; error: string };

/** A conversation as the gateway knows it: its session, where it lives, and its scope. */
export interface ConversationRef {
  sessionKey: string;
  address: ConversationAddress;
  scope: 'dm' | 'group';
  /**
   * Messages sent before this moment (ms since the epoch) are not caught up: the gateway had
   * already taken a newer one there, and answering the older one now would break the order.
   */
  since?: number;
}

/**
 * What the server knows of a request beyond the request itself (the connection it came on), for
 * routes that need it (the admin console counts failed logins per client). Absent when the
 * request came without a connection (`app.request()` in tests).
 */
export interface RouteConnection {
  /** The client's address (behind a local reverse proxy, the address it forwarded), or `unknown`. */
  clientAddress: string;
  /** The port the request came in on, when known. */
  localPort?: number;
  /** Whether the browser speaks https to the gateway (directly or through a proxy that says so). */
  https: boolean;
}

/** An HTTP route an adapter mounts on the gateway's server (webhooks, the web chat page). */
export interface ChannelRoute {
  method: 'GET' | 'POST';
  path: string;
  handler(request: Request, connection?: RouteConnection): Promise<Response>;
}

/** A platform adapter. */
export interface ChannelAdapter {
  readonly platform: string;
  readonly capabilities: ChannelCapabilities;
  /** Connects (long polling, websocket, webhook registration) and starts delivering events. */
  start(handlers: ChannelHandlers): Promise<void>;
  /** Stops receiving; in-flight sends may finish. */
  stop(): Promise<void>;
  /** Renders, splits when too long, and sends. Throws {@link DeliveryError} on failure. */
  send(address: ConversationAddress, message: OutboundMessage): Promise<SentMessage>;
  /** Streams replies by drafts where the platform has them (see {@link DraftStreaming}). */
  readonly drafts?: DraftStreaming;
  /** Replaces a sent message's text (only when `capabilities.edit`). */
  edit(address: ConversationAddress, messageId: string, message: OutboundMessage): Promise<void>;
  /** Shows the typing indicator once (platforms expire it after a few seconds). */
  typing(address: ConversationAddress): Promise<void>;
  /**
   * Takes down a working indicator that does not expire by itself (a reaction on the person's
   * message, say). Called when the turn ends, only if `typing` was called during it.
   */
  stopTyping?(address: ConversationAddress): Promise<void>;
  /** Registers the command menu (when `capabilities.commandMenu`). */
  setCommands?(commands: CommandInfo[]): Promise<void>;
  /**
   * The id of the newest of the bot's own messages in `address` sent at `since` (ms) or later whose
   * text ends with `marker`, where the platform lets a bot read a conversation's messages (Slack).
   * A turn run again after a crash finds with it the preview a killed process sent but never
   * noted, and finishes it.
   */
  findPreview?(address: ConversationAddress, options: { since: number; marker: string }): Promise<string | undefined>;
  /** Acknowledges a button press, optionally with a short notice. */
  answerAction?(action: ChannelAction, text?: string): Promise<void>;
  /** HTTP routes to mount on the gateway's server. */
  routes?(): ChannelRoute[];
  /**
   * Loads ahead what sending needs but start-up does not (a renderer, say), so the first reply
   * does not wait for it. Called a second after the gateway is ready, off the warm gate; sending
   * works without it.
   */
  warm?(): Promise<void>;
}
