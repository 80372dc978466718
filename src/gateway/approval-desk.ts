/**
 * Approval questions that reach the admins in their direct messages. A question goes to the
 * conversation when the person whose turn it is can answer it there; when nobody there can (a
 * scheduled job's turn runs with nobody waiting; another bot is no one to ask), or when it is still unanswered after
 * `approvals.escalateAfterSeconds`, a copy goes to each admin's direct conversation with the bot,
 * once. Whichever answer comes first counts: the copies' buttons carry the question's id
 * (`approve@<id>`), so a press in an admin's direct messages answers the question of the
 * conversation that asked; a press on a copy of a question already answered is told so.
 *
 * The admins are the gateway's (`OPERATOR_ADMINS`, `admins`, the owner made by pairing). An admin
 * gets copies in a direct conversation the bot has had with them (on Telegram the chat with them
 * anyway); one who never talked to the bot is skipped, and a question no admin can be reached for
 * stays in the conversation, where an admin may answer it too.
 */
import { randomBytes } from 'node:crypto';
import type { Button, ChannelAdapter, ConversationAddress } from '../channels/types.ts';
import { errorMessage } from '../core/errors.ts';
import type { KnownConversations } from './known-conversations.ts';

/** What a press on an admin's copy does: answers the question, and says what happened. */
export type DeskAnswer = (allowed: boolean, forAnHour: boolean, by: string) => string;

/** Questions waiting for an answer, by id, for the copies sent to admins. */
export class ApprovalDesk {
  readonly #waiting = new Map<string, DeskAnswer>();

  /** Files `answer` under a new id; {@link close} it once the question is settled. */
  open(answer: DeskAnswer): string {
    let id = randomBytes(4).toString('hex');
    while (this.#waiting.has(id)) id = randomBytes(4).toString('hex');
    this.#waiting.set(id, answer);
    return id;
  }

  close(id: string): void {
    this.#waiting.delete(id);
  }

  /** Answers question `id` for an admin; only admins get copies, and only their answers count. */
  answer(id: string, allowed: boolean, forAnHour: boolean, presser: { id: string; admin: boolean }): string {
    if (!presser.admin) return 'Only an admin can answer this question.';
    const answer = this.#waiting.get(id);
    if (!answer) return 'That question was answered already, or it timed out.';
    return answer(allowed, forAnHour, presser.id);
  }

  /** How many questions wait (tests). */
  get size(): number {
    return this.#waiting.size;
  }
}

/** The buttons of an admin's copy of question `id`. */
export function copyButtons(id: string) {
  return [
    [
      { label: 'Allow once', data: `approve@${id}` },
      { label: 'Deny', data: `deny@${id}` },
    ],
    [{ label: 'Allow for that conversation for 1 hour', data: `approve:hour@${id}` }],
  ];
}

/** The answers a copy offers: buttons, and the commands that answer where there are none. */
export interface CopyChoices {
  buttons: Button[][];
  /** Said instead of the buttons: `Answer /approve ID or /deny ID.` */
  commands: string;
}

/** What sends copies of a question to the admins. */
export interface AdminCopies {
  /**
   * Sends `text` with buttons for question `id` to every admin's direct conversation but
   * `except`'s (`platform:id`, the person who can answer in the conversation); resolves to how
   * many were sent. Never rejects: a failed send is logged. `choices` replace an approval's
   * (allow once, deny, allow for an hour).
   */
  send(text: string, id: string, except?: string, choices?: CopyChoices): Promise<number>;
}

/** Options of {@link adminCopies}. */
export interface AdminCopiesOptions {
  /** `platform:userId` of every admin, read when a copy goes out (the owner made by pairing may change). */
  admins(): Promise<readonly string[]>;
  known: Pick<KnownConversations, 'all'>;
  adapters: ReadonlyMap<string, Pick<ChannelAdapter, 'send' | 'capabilities'>>;
  log(line: string): void;
}

/** Copies to the admins' direct conversations with the bot, found among the conversations on record. */
export function adminCopies(options: AdminCopiesOptions): AdminCopies {
  return {
    async send(text, id, except, choices) {
      const admins = (await options.admins()).filter((person) => person !== except);
      let sent = 0;
      for (const { person, address } of await directConversations(admins, options)) {
        const adapter = options.adapters.get(address.platform);
        if (!adapter) continue;
        const buttons = adapter.capabilities.buttons ? (choices?.buttons ?? copyButtons(id)) : undefined;
        const answer = buttons ? text : `${text}\n${choices?.commands ?? `Answer /approve ${id}, /approve hour ${id} or /deny ${id}.`}`;
        try {
          await adapter.send(address, { text: answer, buttons });
          sent++;
        } catch (error) {
          options.log(`question ${id}: copy to ${person} not sent: ${errorMessage(error)}`);
        }
      }
      return sent;
    },
  };
}

/** Where each of `admins` talks to the bot directly, for those who ever did (Telegram: their chat). */
async function directConversations(admins: readonly string[], options: AdminCopiesOptions): Promise<{ person: string; address: ConversationAddress }[]> {
  const found: { person: string; address: ConversationAddress }[] = [];
  const byPlatform = new Map<string, Map<string, ConversationAddress>>();
  for (const person of admins) {
    const colon = person.indexOf(':');
    const platform = person.slice(0, colon);
    const userId = person.slice(colon + 1);
    if (colon <= 0 || !options.adapters.has(platform)) continue;
    let direct = byPlatform.get(platform);
    if (!direct) {
      direct = new Map();
      for (const entry of await options.known.all(platform)) if (entry.scope === 'dm') direct.set(entry.sessionKey, entry.address);
      byPlatform.set(platform, direct);
    }
    // A Telegram chat with a person has the person's id: reachable once they started the bot.
    const address = direct.get(`${platform}:dm:${userId}`) ?? (platform === 'telegram' ? { platform, conversationId: userId } : undefined);
    if (address) found.push({ person, address });
  }
  return found;
}

/** The text of an admin's copy: where it was asked and the question itself. */
export function copyText(conversation: string, question: string, why: 'nobody' | 'waiting'): string {
  const lead = why === 'nobody' ? `Approval needed in ${conversation}, where nobody can answer it:` : `Still waiting for an answer in ${conversation}:`;
  return `${lead}\n${question}`;
}
