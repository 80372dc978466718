/**
 * The terminal as a pipeline's Interviewer: a gate's question is printed with its choices
 * numbered, and a line typed on stdin answers (a number, a choice's label, or free text); a gate's
 * timeout takes its default. Lines typed before a question are kept for it, so answers can be
 * piped in (`printf 'go\n' | operator pipeline run task.dot`). At the end of input, a question
 * takes its default, or fails the gate.
 */
import { createInterface, type Interface } from 'node:readline';
import { matchOption, type Answer, type Interviewer, type Question } from '../pipelines/engine/interviewer.ts';

/** An Interviewer on `input`/`output` (stdin/stdout by default); `close()` lets go of the input. */
export function createTerminalInterviewer(input: NodeJS.ReadableStream = process.stdin, output: NodeJS.WritableStream = process.stdout): Interviewer & { close(): void } {
  let reader: Interface | undefined;
  const lines: string[] = [];
  const waiting: ((line: string | undefined) => void)[] = [];
  let ended = false;
  const open = () => {
    if (reader) return;
    reader = createInterface({ input, terminal: false });
    reader.on('line', (line) => (waiting.length > 0 ? waiting.shift()!(line) : lines.push(line)));
    reader.on('close', () => {
      ended = true;
      for (const resolve of waiting.splice(0)) resolve(undefined);
    });
  };
  const nextLine = (signal: AbortSignal, timeoutMs: number | undefined): Promise<string | undefined | 'timeout'> => {
    if (lines.length > 0) return Promise.resolve(lines.shift()!);
    if (ended) return Promise.resolve(undefined);
    return new Promise((resolve, reject) => {
      const timer = timeoutMs ? setTimeout(() => finish('timeout'), timeoutMs) : undefined;
      const onAbort = () => {
        cleanup();
        reject(signal.reason instanceof Error ? signal.reason : new Error('stopped'));
      };
      const take = (line: string | undefined) => finish(line);
      const cleanup = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        const index = waiting.indexOf(take);
        if (index >= 0) waiting.splice(index, 1);
      };
      function finish(value: string | undefined | 'timeout') {
        cleanup();
        resolve(value);
      }
      waiting.push(take);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  };
  return {
    async ask(question: Question, signal: AbortSignal): Promise<Answer> {
      open();
      const choices = question.options.map((option, index) => `  ${index + 1}) ${option.label}`);
      const hint = question.defaultAnswer ? ` [default: ${question.defaultAnswer}${question.timeoutSeconds ? ` in ${question.timeoutSeconds} s` : ''}]` : '';
      for (;;) {
        output.write(`\n? ${question.text}${hint}\n${choices.length > 0 ? `${choices.join('\n')}\n` : ''}> `);
        const line = await nextLine(signal, question.timeoutSeconds ? question.timeoutSeconds * 1000 : undefined);
        if (line === 'timeout' || line === undefined) {
          const value = question.defaultAnswer ?? '';
          output.write(`${line === 'timeout' ? '(no answer in time' : '(end of input'}${question.defaultAnswer ? `: ${value})` : ')'}\n`);
          return { value, option: matchOption(question.options, value), timedOut: true };
        }
        const text = line.trim();
        if (question.options.length === 0) return { value: text };
        const byNumber = /^\d+$/.test(text) ? question.options[Number(text) - 1] : undefined;
        const option = byNumber ?? matchOption(question.options, text);
        if (option) return { value: option.label, option };
        output.write(`"${text}" is none of the choices.\n`);
      }
    },
    async inform(message: string) {
      output.write(`${message}\n`);
    },
    close() {
      reader?.close();
    },
  };
}
