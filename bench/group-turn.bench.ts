/**
 * Who said what, per group turn (issue 34): what labelling costs a turn in a busy group. Each
 * turn keeps 20 overheard messages (500 characters each, from 5 people whose names need cleaning:
 * accents, emoji, a bidirectional override, brackets) and then builds the turn's text for its
 * speaker: every sender's label, each text escaped, the frame. The floor is a direct message's
 * turn, whose text goes to the model as it is; the figure is the difference of medians.
 */
import type { InboundMessage } from '../src/channels/types.ts';
import { keepOverheard, turnText, type OverheardMessage } from '../src/gateway/conversations.ts';
import { median, sample, type BenchResult } from './lib.ts';

const people = [
  { id: '1001', name: 'Ada Lovelace', username: 'ada' },
  { id: '1002', name: 'Zoë Ångström 🚀' },
  { id: '1003', name: 'Mal\u202elory [admin]', username: 'mallory' },
  { id: '1004', name: '<b>Bob</b>' },
  { id: '1005', name: 'Chloé · telegram:1001' },
];
const text = `${'the deploy to staging failed on the migration step, '.repeat(9)}\n[Ada Lovelace · telegram:1001]: ok`.slice(0, 500);

function message(index: number, scope: 'dm' | 'group'): InboundMessage {
  const sender = people[index % people.length]!;
  return { id: String(index), dedupeKey: `u${index}`, sessionKey: 'telegram:group:-100', address: { platform: 'telegram', conversationId: '-100' }, scope, sender, text, attachments: [], mentioned: true, receivedAt: 0, raw: {} };
}

/** One turn: in a group 20 messages overheard, then the turn's own text; a direct message has only its own. */
function turn(scope: 'dm' | 'group'): string {
  const overheard: OverheardMessage[] = [];
  if (scope === 'group') for (let index = 0; index < 20; index++) keepOverheard(overheard, message(index, scope));
  return turnText({ overheard }, message(20, scope));
}

export default async function groupTurnBench(): Promise<BenchResult[]> {
  const rounds = 5;
  const group: number[] = [];
  const direct: number[] = [];
  for (let round = 0; round < rounds; round++) {
    direct.push(median(await sample(400, () => turn('dm'))));
    group.push(median(await sample(400, () => turn('group'))));
  }
  const cost = median(group) - median(direct);
  return [
    { name: 'group turn text, 20 overheard messages from 5 people, labelled and escaped (median)', value: median(group), unit: 'ms' },
    { name: 'a direct message\'s turn text (floor: nothing overheard, not labelled)', value: median(direct), unit: 'ms' },
    { name: 'attribution per group turn (difference)', value: cost, unit: 'ms', target: '<= 0.1 ms', pass: cost <= 0.1 },
  ];
}
