/**
 * A pipeline's gates in a chat: the question is sent to the conversation the run belongs to, with
 * one button per choice where the platform has buttons (`gate:RUN:N`), and `/answer [RUN] TEXT`
 * everywhere (a typed choice, or the answer of a free-text gate). Who may answer: in a direct
 * message its person; in a group the person who started the run, or an admin. A gate's timeout
 * takes its default; the question is then edited to say what was taken.
 */
import type { ChannelAdapter, ConversationAddress } from '../../channels/types.ts';
import { errorMessage } from '../../core/errors.ts';
import { matchOption, type Answer, type Interviewer, type Question } from '../../pipelines/engine/interviewer.ts';

/** Where a run lives and who started it. */
export interface RunSeat {
  runId: string;
  sessionKey: string;
  address: ConversationAddress;
  scope: 'dm' | 'group';
  starterId: string;
}

/** A gate waiting for its answer. */
interface WaitingGate {
  seat: RunSeat;
  question: Question;
  messageId?: string;
  settle(answer: Answer): void;
}

/** What the gates need from the gateway. */
export interface ChatGatesOptions {
  adapterOf(platform: string): ChannelAdapter | undefined;
  isAdmin(platform: string, userId: string): boolean;
  log(line: string): void;
}

/** The gates of every run in the chats. */
export class ChatGates {
  readonly #options: ChatGatesOptions;
  readonly #waiting = new Map<string, WaitingGate>();

  constructor(options: ChatGatesOptions) {
    this.#options = options;
  }

  /** The Interviewer of the run at `seat`. */
  interviewerFor(seat: RunSeat): Interviewer {
    return {
      ask: (question, signal) => this.#ask(seat, question, signal),
      inform: async (message) => {
        await this.#options.adapterOf(seat.address.platform)?.send(seat.address, { text: message }).catch((error: unknown) => this.#options.log(`${seat.sessionKey}: pipeline note not sent: ${errorMessage(error)}`));
      },
    };
  }

  /**
   * A button press `gate:RUN:N`: what to tell the presser. Only the seat's people may answer
   * (see the file's comment); a stale button says so.
   */
  press(data: string, sessionKey: string, senderId: string, senderName: string | undefined): string {
    const [, runId = '', index = ''] = data.split(':');
    const gate = this.#waiting.get(runId);
    if (!gate || gate.seat.sessionKey !== sessionKey) return 'This question is no longer waiting.';
    const option = gate.question.options[Number(index)];
    if (!option) return 'This question is no longer waiting.';
    const refusal = this.#refusal(gate, senderId);
    if (refusal) return refusal;
    gate.settle({ value: option.label, option, by: senderName ?? senderId });
    return `${option.label}.`;
  }

  /** `/answer [RUN] TEXT`: answers the waiting gate of this conversation (the only one, or RUN's). */
  answer(args: string, sessionKey: string, senderId: string, senderName: string | undefined): string {
    const here = [...this.#waiting.values()].filter((gate) => gate.seat.sessionKey === sessionKey);
    if (here.length === 0) return 'No pipeline is waiting for an answer here.';
    const [first = '', ...rest] = args.trim().split(/\s+/);
    const named = here.find((gate) => gate.seat.runId === first);
    const gate = named ?? (here.length === 1 ? here[0] : undefined);
    if (!gate) return `${here.length} runs wait for an answer here: say which, /answer RUN TEXT (${here.map((waiting) => waiting.seat.runId).join(', ')}).`;
    const text = (named ? rest.join(' ') : args).trim();
    const refusal = this.#refusal(gate, senderId);
    if (refusal) return refusal;
    const options = gate.question.options;
    if (options.length === 0) {
      if (text === '') return 'Usage: /answer TEXT';
      gate.settle({ value: text, by: senderName ?? senderId });
      return 'Answered.';
    }
    const option = /^\d+$/.test(text) ? options[Number(text) - 1] : matchOption(options, text);
    if (!option) return `Answer with one of: ${options.map((choice) => choice.label).join(', ')}.`;
    gate.settle({ value: option.label, option, by: senderName ?? senderId });
    return `${option.label}.`;
  }

  /** The runs waiting for an answer in `sessionKey`. */
  waitingIn(sessionKey: string): string[] {
    return [...this.#waiting.values()].filter((gate) => gate.seat.sessionKey === sessionKey).map((gate) => gate.seat.runId);
  }

  #refusal(gate: WaitingGate, senderId: string): string | undefined {
    const { seat } = gate;
    if (seat.scope === 'dm' || senderId === seat.starterId || this.#options.isAdmin(seat.address.platform, senderId)) return undefined;
    return 'Only the person who started this run, or an admin, can answer.';
  }

  async #ask(seat: RunSeat, question: Question, signal: AbortSignal): Promise<Answer> {
    const adapter = this.#options.adapterOf(seat.address.platform);
    if (!adapter) throw new Error(`no ${seat.address.platform} connection to ask "${question.text}" on`);
    signal.throwIfAborted();
    return new Promise<Answer>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const finish = (outcome: { answer: Answer } | { error: Error }) => {
        if (this.#waiting.get(seat.runId) !== gate) return;
        this.#waiting.delete(seat.runId);
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        if ('error' in outcome) return reject(outcome.error);
        void this.#closeQuestion(adapter, gate, outcome.answer);
        resolve(outcome.answer);
      };
      const onAbort = () => finish({ error: signal.reason instanceof Error ? signal.reason : new Error('stopped') });
      const gate: WaitingGate = { seat, question, settle: (answer) => finish({ answer }) };
      this.#waiting.get(seat.runId)?.settle({ value: '', timedOut: true });
      this.#waiting.set(seat.runId, gate);
      signal.addEventListener('abort', onAbort, { once: true });
      if (question.timeoutSeconds) {
        timer = setTimeout(() => finish({ answer: { value: question.defaultAnswer ?? '', option: matchOption(question.options, question.defaultAnswer ?? ''), timedOut: true } }), question.timeoutSeconds * 1000);
        timer.unref();
      }
      const buttons = adapter.capabilities.buttons && question.options.length > 0 ? [question.options.map((option, index) => ({ label: option.label, data: `gate:${seat.runId}:${index}` }))] : undefined;
      const how = question.options.length === 0 ? `Answer with /answer ${seat.runId} TEXT.` : buttons ? '' : `Answer with /answer ${seat.runId} ${question.options.map((option) => option.label).join(' | ')}.`;
      const text = [`[${seat.runId}] ${question.text}`, how].filter((part) => part !== '').join('\n\n');
      adapter.send(seat.address, { text, buttons }).then(
        (sent) => (gate.messageId = sent.ids.at(-1)),
        (error: unknown) => finish({ error: new Error(`the question could not be sent: ${errorMessage(error)}`) }),
      );
    });
  }

  /** Edits the question to say what was answered (or taken by default), and takes its buttons away. */
  async #closeQuestion(adapter: ChannelAdapter, gate: WaitingGate, answer: Answer): Promise<void> {
    if (gate.messageId === undefined || !adapter.capabilities.edit) return;
    const said = answer.timedOut ? `no answer in time: ${answer.value || 'nothing'} taken` : `${answer.value}${answer.by ? ` (${answer.by})` : ''}`;
    await adapter.edit(gate.seat.address, gate.messageId, { text: `[${gate.seat.runId}] ${gate.question.text}\n\n→ ${said}` }).catch((error: unknown) => this.#options.log(`${gate.seat.sessionKey}: gate question not edited: ${errorMessage(error)}`));
  }
}
