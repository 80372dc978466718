/**
 * The terminal chat's turns: the owner's seat (every tool, the profile's memory), with what
 * untrusted content the session holds. Once a tool read a web page there, a call that acts asks
 * first (`y/N`) naming the page, for the rest of the session, as in the owner's direct messages;
 * kept in the store, so the next `operator chat` on that session asks too (`taint.mode`).
 */
import type { Agent } from '../agent/agent.ts';
import { SessionTaints } from '../gateway/session-taint.ts';
import type { Store } from '../store/store.ts';
import type { TurnContext } from '../tools/tool.ts';
import type { TaintMode } from '../tools/turn-taint.ts';

/** Makes each terminal turn's context, for `person` (`terminal:local`). */
export function terminalTurns(store: Store, mode: TaintMode, person: string): (agent: Agent) => Promise<TurnContext> {
  const taints = new SessionTaints({ store, mode, log: (line) => process.stderr.write(`operator: ${line}\n`) });
  const [platform = 'terminal', senderId = 'local'] = person.split(':');
  return async (agent) => {
    const sessionId = (await agent.session()).id;
    const taint = await taints.begin({ sessionId, scope: 'dm', speaker: person, othersHeard: false });
    return { sessionKey: agent.sessionKey, platform, senderId, admin: true, owner: true, scheduled: false, taint };
  };
}
