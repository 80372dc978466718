/**
 * The inbox: every message the gateway accepts for a turn is written here before the platform
 * is told it arrived, and removed once the turn's reply is recorded in the delivery ledger (or
 * the person was told the turn failed). A process that dies mid-turn leaves the entry; the next
 * start answers it. With the ledger this closes the gap between "the platform handed us the
 * message" and "the reply is on record": a crash anywhere in it loses nothing.
 *
 * Only the {@link Store} interface is used (fs, memory, Redis), through a journal
 * (`journal:inbox:…`); an entry's key is the message's dedupe key.
 */
import type { Attachment, ConversationAddress, InboundMessage, Sender } from '../channels/types.ts';
import type { Store } from '../store/store.ts';
import { createJournal, type JournalDamage } from './journal.ts';

/** What is kept of an accepted message: enough to run its turn again in another process. */
export interface InboxEntry {
  /** The store key (pass it to {@link Inbox.done}). */
  key: string;
  dedupeKey: string;
  sessionKey: string;
  address: ConversationAddress;
  scope: InboundMessage['scope'];
  /** The group an admin approves, as the adapter named it (see `InboundMessage.group`); absent in older records. */
  group?: InboundMessage['group'];
  /** Platform message id (a group reply quotes it). */
  messageId: string;
  sender: Sender;
  /** The text the turn gives the model (in groups: labelled, after what was overheard). */
  text: string;
  /**
   * The message's `/command args`, when it was one: a skill's command is answered after a restart
   * as it would have been (absent in older records, and for messages that were not commands).
   */
  command?: InboundMessage['command'];
  /**
   * What was attached (the bytes are not kept: a replay says they were lost); a recording's kind
   * and length too (the Worker's turn transcribes it; absent in older records).
   */
  attachments: Pick<Attachment, 'kind' | 'mediaType' | 'name' | 'size' | 'recording'>[];
  /** Milliseconds since the epoch. */
  receivedAt: number;
  /** When the platform says it was sent (see `InboundMessage.sentAt`). */
  sentAt?: number;
  /**
   * Set when its turn began: where the session stood before it and what the model was given. A
   * turn cut off by a crash is run again from here, from the person's message itself.
   */
  begun?: TurnStart;
  /** The streamed preview of its answer, once one was sent: a turn run again finishes this message. */
  previewId?: string;
}

/** Where a message's turn began (see {@link InboxEntry.begun}). */
export interface TurnStart {
  /** The session's leaf before the turn (`null`: the session was empty). */
  leaf: string | null;
  /** The model's input for the turn. */
  input: string;
  /** Inbox keys the turn answers together (this one first). */
  keys: string[];
  /** When the turn began (ms since the epoch): its preview was sent after it. Absent in older records. */
  at?: number;
}

/** Accepted messages whose turns have not finished. */
export interface Inbox {
  /** Records an accepted message; resolves to its key once it is stored. */
  add(message: InboundMessage, text: string): Promise<string>;
  /** The message's turn is over (reply recorded, or the failure told): forget it. */
  done(key: string): Promise<void>;
  /** Whether `key` waits for an answer. */
  has(key: string): Promise<boolean>;
  /** Notes that the turn answering `start.keys` began (on each of them still waiting). */
  begin(start: TurnStart): Promise<void>;
  /** Notes the preview message of the answer to `key`. */
  notePreview(key: string, previewId: string): Promise<void>;
  /** Messages accepted and never finished, oldest first (after a crash: what to answer now). */
  pending(): Promise<InboxEntry[]>;
}

/** Options of {@link createInbox}. */
export interface InboxOptions {
  /**
   * How long an entry is kept, in seconds (default 86,400: the dedupe window). A message older
   * than this is not answered after a restart: by then the answer would be news to nobody.
   */
  ttlSeconds?: number;
  /** Clock in milliseconds since the epoch (default `Date.now`). */
  now?: () => number;
  /** Told about damage found in the inbox journal: accepted messages may be lost (see `JournalOptions.onDamage`). */
  onDamage?: (report: JournalDamage) => void;
}

/**
 * Creates an {@link Inbox} over `store`: a {@link createJournal journal} named `inbox`, so taking a
 * message in and letting it go cost one appended record each, not a file created and deleted.
 *
 * @example
 * const key = await inbox.add(message, text);   // before acknowledging the platform
 * // ... the turn runs, its reply is recorded in the ledger ...
 * await inbox.done(key);
 */
export function createInbox(store: Store, options: InboxOptions = {}): Inbox {
  const journal = createJournal<Omit<InboxEntry, 'key'>>(store, { name: 'inbox', ttlSeconds: options.ttlSeconds ?? 86_400, now: options.now, onDamage: options.onDamage });
  return {
    async add(message, text) {
      const key = message.dedupeKey;
      await journal.set(key, {
        dedupeKey: message.dedupeKey,
        sessionKey: message.sessionKey,
        address: message.address,
        scope: message.scope,
        ...(message.group !== undefined && { group: message.group }),
        messageId: message.id,
        sender: message.sender,
        text,
        ...(message.command !== undefined && { command: message.command }),
        attachments: message.attachments.map(({ kind, mediaType, name, size, recording }) => ({ kind, mediaType, name, size, ...(recording !== undefined && { recording }) })),
        receivedAt: message.receivedAt,
        ...(message.sentAt !== undefined && { sentAt: message.sentAt }),
      });
      return key;
    },

    done: (key) => journal.delete(key),

    has: async (key) => (await journal.get(key)) !== undefined,

    async begin(start) {
      for (const key of start.keys) {
        const entry = await journal.get(key);
        if (entry) await journal.set(key, { ...entry, begun: start });
      }
    },

    async notePreview(key, previewId) {
      const entry = await journal.get(key);
      if (entry && entry.previewId !== previewId) await journal.set(key, { ...entry, previewId });
    },

    async pending() {
      const entries = (await journal.entries()).map(([key, entry]) => ({ ...entry, key }));
      return entries.sort((a, b) => a.receivedAt - b.receivedAt);
    },
  };
}
