/**
 * Approve-to-continue: when a spending cap stops a person's turn, the admins get a message in
 * their direct messages with three answers (buttons where the platform has them, `/budget allow
 * ID`, `/budget raise ID`, `/budget deny ID` where it has not):
 *
 * - **Allow one more turn**: the refused message is answered now, its turn passing that one cap;
 * - **Raise today's cap by N** (N the cap itself, so it doubles): the cap is raised for the rest of
 *   its day (or month), and the refused message is answered;
 * - **Deny**: the conversation is told the cap stays until it resets.
 *
 * Only an admin's answer counts, and only the first. A refused turn's session was rewound to before
 * the message (see `agent/retry-loop.ts`), so answering it again is its one turn, not a second copy.
 * One question per conversation and cap at a time: a later refusal there only updates the message
 * that an allowance answers (the latest). Questions are kept in the store (`budget-asks`), so an
 * answer after a restart still counts, until the cap resets.
 */
import { randomBytes } from 'node:crypto';
import type { ConversationAddress, InboundMessage } from '../../channels/types.ts';
import { BudgetExhaustedError, errorMessage } from '../../core/errors.ts';
import type { Store } from '../../store/store.ts';
import type { AdminCopies, CopyChoices } from '../approval-desk.ts';
import { dollars, resetTime, scopeKind } from './budget-gate.ts';
import type { GatewaySpending } from './gateway-spending.ts';
import { periodOf } from './spend-book.ts';

/** Where open questions are kept. */
const asksKey = 'budget-asks';

/** How many open questions are kept at most (the oldest go first). */
const maxAsks = 200;

/** The message a question answers once allowed: what replaying it needs, without the platform's raw payload. */
export type AskedMessage = Pick<InboundMessage, 'id' | 'dedupeKey' | 'sessionKey' | 'address' | 'scope' | 'group' | 'sender' | 'text' | 'command' | 'receivedAt'>;

/** A refused turn waiting for an admin. */
export interface SpendAsk {
  id: string;
  /** The cap that refused: its scope (`person telegram:7`), period, amount and the period it counted in (`2026-11-30`). */
  scope: string;
  period: 'day' | 'month';
  cap: number;
  periodKey: string;
  message: AskedMessage;
}

/** An admin's answer. */
export type AskChoice = 'once' | 'raise' | 'deny';

/** What {@link SpendAsks} works with. */
export interface SpendAsksOptions {
  store: Pick<Store, 'get' | 'set'>;
  spending: Pick<GatewaySpending, 'allowTurn' | 'book'>;
  copies: AdminCopies;
  /** Takes the refused message in again, as a new delivery (its dedupe key is the question's). */
  resubmit(message: InboundMessage): Promise<void>;
  /** Says `text` in a conversation. */
  tell(address: ConversationAddress, text: string): Promise<void>;
  log(line: string): void;
  now?: () => Date;
}

/** The buttons and commands of question `id`, raising by `raise` dollars a `period`. */
export function askChoices(id: string, raise: number, period: 'day' | 'month'): CopyChoices {
  const raiseLabel = `Raise ${period === 'day' ? "today's" : "this month's"} cap by ${dollars(raise)}`;
  return {
    buttons: [
      [
        { label: 'Allow one more turn', data: `budget:once@${id}` },
        { label: 'Deny', data: `budget:deny@${id}` },
      ],
      [{ label: raiseLabel, data: `budget:raise@${id}` }],
    ],
    commands: `Answer /budget allow ${id} (one more turn), /budget raise ${id} (${raiseLabel.toLowerCase()}) or /budget deny ${id}.`,
  };
}

/** The questions a spending cap's refusals put to the admins. */
export class SpendAsks {
  readonly #options: SpendAsksOptions;
  #asks: SpendAsk[] | undefined;
  /** One change of the kept list at a time. */
  #writing: Promise<unknown> = Promise.resolve();

  constructor(options: SpendAsksOptions) {
    this.#options = options;
  }

  /**
   * A person's turn refused by `error`'s cap: asks the admins (once per conversation and cap) and
   * resolves to the words the person is told after the refusal, or undefined when no admin could
   * be asked. Never rejects.
   */
  async refused(message: InboundMessage, error: BudgetExhaustedError): Promise<string | undefined> {
    const { scope, period, cap } = error.details;
    if (typeof scope !== 'string' || (period !== 'day' && period !== 'month') || typeof cap !== 'number') return undefined;
    try {
      return await this.#change(async (asks) => {
        const periodKey = periodOf(period, this.#now());
        const open = asks.find((ask) => ask.scope === scope && ask.periodKey === periodKey && ask.message.sessionKey === message.sessionKey);
        if (open) {
          open.message = askedMessage(message);
          return 'An admin has been asked to allow more.';
        }
        const id = this.#newId(asks);
        // The cap as configured: raised caps are in `cap` already, and a raise adds the configured amount.
        const base = cap - (await this.#options.spending.book.raised(scope, period));
        const ask: SpendAsk = { id, scope, period, cap: base > 0 ? base : cap, periodKey, message: askedMessage(message) };
        const who = message.sender.name ? `${message.sender.name} (${message.address.platform}:${message.sender.id})` : `${message.address.platform}:${message.sender.id}`;
        const text = `A spending cap stopped a turn in ${message.sessionKey}, for ${who}: ${error.message.replace(/^Not answered: /, '')}`;
        const sent = await this.#options.copies.send(text, id, undefined, askChoices(id, ask.cap, period));
        if (sent === 0) return undefined;
        asks.push(ask);
        return 'An admin has been asked to allow more.';
      });
    } catch (failure) {
      this.#options.log(`${message.sessionKey}: admins not asked about the spending cap: ${errorMessage(failure)}`);
      return undefined;
    }
  }

  /** An admin's answer to question `id` (a button or `/budget allow|raise|deny ID`); resolves to what the presser is told. */
  async answer(id: string, choice: AskChoice, presser: { id: string; admin: boolean }): Promise<string> {
    if (!presser.admin) return 'Only an admin can answer this.';
    const ask = await this.#change(async (asks) => {
      const index = asks.findIndex((entry) => entry.id === id);
      return index < 0 ? undefined : asks.splice(index, 1)[0];
    });
    if (!ask) return 'That was answered already, or its cap has reset.';
    const { message } = ask;
    if (choice === 'deny') {
      await this.#options.tell(message.address, `An admin kept the spending cap: it resets at ${resetTime(ask.period, this.#now())} UTC.`).catch((error: unknown) => this.#options.log(`${message.sessionKey}: denial not told: ${errorMessage(error)}`));
      return `Denied: ${message.sessionKey} stays at its cap.`;
    }
    let said: string;
    if (choice === 'raise') {
      const raised = await this.#options.spending.book.raise(ask.scope, ask.period, ask.cap);
      said = `Raised: ${describeScope(ask.scope)}'s cap is ${dollars(ask.cap + raised)} ${ask.period === 'day' ? 'today' : 'this month'}; the message is answered now.`;
    } else {
      this.#options.spending.allowTurn(message.id, [ask.scope]);
      said = `Allowed one more turn in ${message.sessionKey}; the message is answered now.`;
    }
    // A new delivery of the same message: its own dedupe key, so it is taken and answered once.
    await this.#options.resubmit({ ...message, dedupeKey: `${message.dedupeKey}#budget-${ask.id}`, attachments: [], mentioned: true, raw: undefined });
    return said;
  }

  /** Open questions (the console, tests). */
  async open(): Promise<readonly SpendAsk[]> {
    return this.#change(async (asks) => [...asks], false);
  }

  /** Runs `change` over the kept list (read once, without questions whose period is over), then keeps it unless `write` is false. */
  async #change<T>(change: (asks: SpendAsk[]) => Promise<T>, write = true): Promise<T> {
    const run = this.#writing.then(async () => {
      this.#asks ??= readAsks(await this.#options.store.get<unknown>(asksKey));
      const now = this.#now();
      this.#asks = this.#asks.filter((ask) => ask.periodKey === periodOf(ask.period, now));
      const result = await change(this.#asks);
      if (this.#asks.length > maxAsks) this.#asks.splice(0, this.#asks.length - maxAsks);
      if (write) await this.#options.store.set(asksKey, this.#asks);
      return result;
    });
    this.#writing = run.catch(() => undefined);
    return run;
  }

  #newId(asks: readonly SpendAsk[]): string {
    let id = randomBytes(4).toString('hex');
    while (asks.some((ask) => ask.id === id)) id = randomBytes(4).toString('hex');
    return id;
  }

  #now(): Date {
    return this.#options.now?.() ?? new Date();
  }
}

/** `person telegram:7` as people read it. */
function describeScope(scope: string): string {
  const kind = scopeKind(scope);
  return kind === 'gateway' ? 'the gateway' : `${kind} ${scope.slice(kind.length + 1)}`;
}

/** What of `message` a question keeps. */
function askedMessage(message: InboundMessage): AskedMessage {
  const { id, dedupeKey, sessionKey, address, scope, group, sender, text, command, receivedAt } = message;
  return { id, dedupeKey, sessionKey, address, scope, ...(group !== undefined && { group }), sender, text, ...(command !== undefined && { command }), receivedAt };
}

/** The kept list, or none for anything that is not one (a damaged value is not trusted). */
function readAsks(value: unknown): SpendAsk[] {
  if (!Array.isArray(value)) return [];
  return value.filter((ask): ask is SpendAsk => typeof ask === 'object' && ask !== null && typeof ask.id === 'string' && typeof ask.scope === 'string' && (ask.period === 'day' || ask.period === 'month') && typeof ask.cap === 'number' && typeof ask.message?.sessionKey === 'string' && typeof ask.message?.id === 'string');
}

/** Whether `error` is a cap's refusal an admin can lift (not the kill switch, not a run's cap). */
export function isAskable(error: unknown): error is BudgetExhaustedError {
  return error instanceof BudgetExhaustedError && typeof error.details['scope'] === 'string' && (error.details['period'] === 'day' || error.details['period'] === 'month') && scopeKind(error.details['scope']) !== 'job';
}
