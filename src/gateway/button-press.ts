/** A button pressed in a chat: a tool-call approval or a pipeline gate. */
import type { ChannelAction, ChannelAdapter } from '../channels/types.ts';
import { errorMessage } from '../core/errors.ts';
import { answerApproval } from './approvals.ts';
import type { Gateway } from './gateway.ts';

/**
 * Answers `action` (once: a redelivered press is ignored). Never rejects: a failure is logged, as
 * the platform has nobody to tell.
 */
export async function handleButtonPress(gateway: Gateway, adapter: ChannelAdapter, action: ChannelAction): Promise<void> {
  try {
    if (!(await gateway.dedupe.firstTime(action.dedupeKey))) return;
    const conversation = await gateway.conversations.peek(action.sessionKey);
    const [verb] = action.data.split(':');
    const admin = gateway.isAdmin(action.address.platform, action.sender.id);
    if (verb === 'gate') return void (await adapter.answerAction?.(action, gateway.gates.press(action.data, action.sessionKey, action.sender.id, action.sender.name)));
    const known = verb === 'approve' || verb === 'deny' ? conversation : undefined;
    await adapter.answerAction?.(action, answerApproval(known, verb === 'approve', action.sender.id, admin));
  } catch (error) {
    gateway.log(`${action.sessionKey}: button not handled: ${errorMessage(error)}`);
  }
}
