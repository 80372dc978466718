/**
 * A pipeline's gates in a chat, over a recording adapter: the question with one button per
 * choice, a press by the starter or an admin (anyone else refused), `/answer` by number, label or
 * free text, several runs waiting at once, the timeout taking the default (and saying so), and a
 * stopped run taking its question back.
 */
import { describe, expect, it } from 'vitest';
import type { ChannelAdapter, OutboundMessage } from '../../src/channels/types.ts';
import { ChatGates, type RunSeat } from '../../src/gateway/pipelines/chat-gates.ts';
import type { Question } from '../../src/pipelines/engine/interviewer.ts';

function recordingAdapter(buttons = true) {
  const sent: OutboundMessage[] = [];
  const edits: { id: string; text: string }[] = [];
  const adapter = {
    platform: 'telegram',
    capabilities: { edit: true, typing: true, buttons, threads: false, maxLength: 4096, editIntervalMs: 0, commandMenu: false, maxFileBytes: 0 },
    send: async (_address: unknown, message: OutboundMessage) => {
      sent.push(message);
      return { ids: [String(sent.length)] };
    },
    edit: async (_address: unknown, id: string, message: OutboundMessage) => {
      edits.push({ id, text: message.text });
    },
  } as unknown as ChannelAdapter;
  return { adapter, sent, edits };
}

const seat = (runId: string, scope: 'dm' | 'group' = 'group'): RunSeat => ({ runId, sessionKey: 'telegram:group:-1', address: { platform: 'telegram', conversationId: '-1' }, scope, starterId: '7' });
const choice: Question = { text: 'Ship it?', stage: 'approve', options: [{ label: 'Go', value: 'ship' }, { label: 'Stop', value: 'done' }] };

function gatesOver(adapter: ChannelAdapter) {
  return new ChatGates({ adapterOf: () => adapter, isAdmin: (_platform, id) => id === '1', log: () => undefined });
}

describe('chat gates', () => {
  it('asks with a button per choice; a stranger is refused, the starter answered, the question then says so', async () => {
    const { adapter, sent, edits } = recordingAdapter();
    const gates = gatesOver(adapter);
    const asked = gates.interviewerFor(seat('aaa111')).ask(choice, new AbortController().signal);
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent[0]).toMatchObject({ text: '[aaa111] Ship it?', buttons: [[{ label: 'Go', data: 'gate:aaa111:0' }, { label: 'Stop', data: 'gate:aaa111:1' }]] });
    expect(gates.press('gate:aaa111:0', 'telegram:group:-1', '9', 'Eve')).toBe('Only the person who started this run, or an admin, can answer.');
    expect(gates.press('gate:aaa111:0', 'telegram:dm:9', '7', 'Ada')).toBe('This question is no longer waiting.');
    expect(gates.press('gate:aaa111:0', 'telegram:group:-1', '7', 'Ada')).toBe('Go.');
    expect(await asked).toMatchObject({ value: 'Go', option: { value: 'ship' }, by: 'Ada' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(edits).toEqual([{ id: '1', text: '[aaa111] Ship it?\n\n→ Go (Ada)' }]);
    expect(gates.press('gate:aaa111:1', 'telegram:group:-1', '7', 'Ada')).toBe('This question is no longer waiting.');
  });

  it('takes /answer by number or label, names the runs when several wait, and takes free text', async () => {
    const { adapter, sent } = recordingAdapter(false);
    const gates = gatesOver(adapter);
    const first = gates.interviewerFor(seat('aaa111')).ask(choice, new AbortController().signal);
    const second = gates.interviewerFor(seat('bbb222')).ask({ text: 'What name?', stage: 'name', options: [] }, new AbortController().signal);
    await new Promise((resolve) => setImmediate(resolve));
    expect(sent[0]!.text).toBe('[aaa111] Ship it?\n\nAnswer with /answer aaa111 Go | Stop.');
    expect(sent[1]!.text).toBe('[bbb222] What name?\n\nAnswer with /answer bbb222 TEXT.');
    expect(gates.answer('Go', 'telegram:group:-1', '7', undefined)).toBe('2 runs wait for an answer here: say which, /answer RUN TEXT (aaa111, bbb222).');
    expect(gates.answer('aaa111 maybe', 'telegram:group:-1', '7', undefined)).toBe('Answer with one of: Go, Stop.');
    expect(gates.answer('aaa111 2', 'telegram:group:-1', '1', 'Admin')).toBe('Stop.');
    expect((await first).value).toBe('Stop');
    expect(gates.answer('Release 1.2', 'telegram:group:-1', '7', undefined)).toBe('Answered.');
    expect((await second).value).toBe('Release 1.2');
    expect(gates.answer('x', 'telegram:group:-1', '7', undefined)).toBe('No pipeline is waiting for an answer here.');
  });

  it('takes the default when the time passes, and a stopped run takes its question back', async () => {
    const { adapter, edits } = recordingAdapter();
    const gates = gatesOver(adapter);
    const timed = await gates.interviewerFor(seat('ccc333')).ask({ ...choice, timeoutSeconds: 0.05, defaultAnswer: 'Stop' }, new AbortController().signal);
    expect(timed).toMatchObject({ value: 'Stop', option: { value: 'done' }, timedOut: true });
    await new Promise((resolve) => setImmediate(resolve));
    expect(edits.at(-1)!.text).toBe('[ccc333] Ship it?\n\n→ no answer in time: Stop taken');

    const stop = new AbortController();
    const stopped = gates.interviewerFor(seat('ddd444')).ask(choice, stop.signal);
    stop.abort(new Error('stopped with /run stop'));
    await expect(stopped).rejects.toThrow('stopped with /run stop');
    expect(gates.waitingIn('telegram:group:-1')).toEqual([]);
  });
});
