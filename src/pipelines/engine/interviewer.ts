/**
 * The Interviewer: how a pipeline asks a person (a `wait.human` gate). The terminal answers on
 * stdin, a chat with buttons or a typed answer, tests from a queue. A question either offers
 * choices (one per outgoing edge, by label) or takes free text; past its timeout its default is
 * taken.
 */

/** One choice of a question. */
export interface QuestionOption {
  /** What the person sees (the edge's label). */
  label: string;
  /** Where it leads (the edge's target). */
  value: string;
}

/** A question of a gate. */
export interface Question {
  text: string;
  /** The node asking. */
  stage: string;
  /** Empty: a free-text answer. */
  options: readonly QuestionOption[];
  /** Seconds; unset waits as long as it takes. */
  timeoutSeconds?: number;
  /** Taken when the time passes (an option's label, or text). */
  defaultAnswer?: string;
}

/** A person's answer: the option chosen, or text; `timedOut` when the default was taken. */
export interface Answer {
  value: string;
  option?: QuestionOption;
  timedOut?: boolean;
  /** Who answered, when known (a chat's person). */
  by?: string;
}

/** Asks people. */
export interface Interviewer {
  /** Asks `question`; resolves with the answer, or rejects when `signal` aborts (the run stops). */
  ask(question: Question, signal: AbortSignal): Promise<Answer>;
  /** Tells them something (progress, the end). Must not throw. */
  inform(message: string): Promise<void>;
}

/** The option an answer text names: by label (case and spacing ignored, or its accelerator key `[Y]`/`Y)`), else none. */
export function matchOption(options: readonly QuestionOption[], text: string): QuestionOption | undefined {
  const wanted = normalize(text);
  if (wanted === '') return undefined;
  return options.find((option) => normalize(option.label) === wanted) ?? options.find((option) => accelerator(option.label) === wanted);
}

function normalize(text: string): string {
  return text.trim().replace(/\s+/g, ' ').toLowerCase();
}

/** `[Y] Yes` / `Y) Yes` / `Y - Yes` → `y`. */
function accelerator(label: string): string | undefined {
  const match = /^\s*(?:\[(\w)\]|(\w)\)|(\w)\s+-\s)/.exec(label);
  const key = match?.[1] ?? match?.[2] ?? match?.[3];
  return key?.toLowerCase();
}

/** Answers from a list, in order (tests and scripted runs); past the end, each question's default. */
export class QueueInterviewer implements Interviewer {
  readonly asked: Question[] = [];
  readonly told: string[] = [];
  #answers: string[];

  constructor(answers: readonly string[] = []) {
    this.#answers = [...answers];
  }

  async ask(question: Question): Promise<Answer> {
    this.asked.push(question);
    const next = this.#answers.shift();
    const value = next ?? question.defaultAnswer ?? '';
    return { value, option: matchOption(question.options, value), timedOut: next === undefined };
  }

  async inform(message: string): Promise<void> {
    this.told.push(message);
  }
}
