/**
 * A button pressed in a chat: a tool-call approval (or an admin's copy of one, see
 * `approval-desk.ts`), a pipeline gate, a `/config` setting, or an admin's answer to a spending
 * cap's question (`budget/spend-asks.ts`). Every press is answered,
 * so the person's button never spins: a press on a button nothing waits for any more (an old
 * keyboard, a question already answered, a message of another bot's era) gets a short notice.
 */
import { staleButtonNotice } from '../channels/stale-press.ts';
import type { ChannelAction, ChannelAdapter } from '../channels/types.ts';
import { errorMessage } from '../core/errors.ts';
import { answerApproval } from './approvals.ts';
import type { AskChoice } from './budget/spend-asks.ts';
import { configPress } from './config-command.ts';
import { configParts, type ConfigGateway } from './config-parts.ts';
import type { Gateway } from './gateway.ts';

/** What a press is told when answering it failed here (the person may press again). */
const failedPressNotice = 'That press could not be handled just now. Please try again.';

/**
 * Answers `action`, once: a redelivered press (the platform sent it again) only stops the button's
 * spinner, without acting twice. Never rejects: a failure is logged and the press still answered.
 */
export async function handleButtonPress(gateway: Pick<Gateway, 'dedupe' | 'isAdmin' | 'gates' | 'log' | 'approvals' | 'spending'> & ConfigGateway, adapter: ChannelAdapter, action: ChannelAction): Promise<void> {
  let answer: string | undefined;
  try {
    answer = (await gateway.dedupe.firstTime(action.dedupeKey)) ? await pressAnswer(gateway, action) : undefined;
  } catch (error) {
    gateway.log(`${action.sessionKey}: button not handled: ${errorMessage(error)}`);
    answer = failedPressNotice;
  }
  try {
    await adapter.answerAction?.(action, answer);
  } catch (error) {
    gateway.log(`${action.sessionKey}: button press not answered: ${errorMessage(error)}`);
  }
}

/** What the press does, and what its presser is told. */
async function pressAnswer(gateway: Pick<Gateway, 'isAdmin' | 'gates' | 'approvals' | 'spending'> & ConfigGateway, action: ChannelAction): Promise<string> {
  if (action.data.split(':')[0] === 'gate') return gateway.gates.press(action.data, action.sessionKey, action.sender.id, action.sender.name);
  // `budget:once@<id>`, `budget:raise@<id>`, `budget:deny@<id>`: an admin's answer to a spending cap's question.
  const budget = /^budget:(once|raise|deny)@([0-9a-f]{8})$/.exec(action.data);
  if (budget && gateway.spending.asks) return gateway.spending.asks.answer(budget[2]!, budget[1] as AskChoice, { id: action.sender.id, admin: gateway.isAdmin(action.address.platform, action.sender.id) });
  if (action.data.split(':')[0] === 'config') {
    const conversation = await gateway.conversations.peek(action.sessionKey);
    if (!conversation) return 'These settings are out of date: send /config again.';
    const admin = gateway.isAdmin(action.address.platform, action.sender.id);
    return configPress(action.data, configParts(gateway, conversation, { sessionKey: action.sessionKey, address: action.address, senderId: action.sender.id, admin }));
  }
  // `approve:hour@<id>`: a copy of another conversation's question, in an admin's direct messages.
  const [choice = '', id] = action.data.split('@');
  const [verb, scope] = choice.split(':');
  if (verb !== 'approve' && verb !== 'deny') return staleButtonNotice;
  const admin = gateway.isAdmin(action.address.platform, action.sender.id);
  if (id !== undefined) return gateway.approvals.desk.answer(id, verb === 'approve', scope === 'hour', { id: action.sender.id, admin });
  const conversation = await gateway.conversations.peek(action.sessionKey);
  return answerApproval(conversation, verb === 'approve', action.sender.id, admin, { forAnHour: scope === 'hour' });
}
