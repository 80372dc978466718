/**
 * Where a guardrail that threw is reported: a warning in the gateway's log naming the
 * conversation, the guardrail, the tool and the error, for whoever runs the gateway to fix it.
 * The call itself was blocked (or its result withheld) by the agent; see `guardrail-set.ts`. The
 * log scrubs the line of every secret the process knows, as it does every line.
 */
import type { Agent } from '../../agent/agent.ts';
import type { AgentPlace } from '../conversations.ts';
import type { OpsEvents } from './ops-events.ts';

/** Reports every `guardrail_failed` of `agent` as a warning; the listener lives as long as the agent. */
export function watchGuardrailFailures(ops: OpsEvents): (agent: Agent, place: AgentPlace) => void {
  return (agent, place) => {
    agent.subscribe((event) => {
      if (event.type !== 'guardrail_failed') return;
      const what = event.stage === 'before' ? `so ${event.call.name} was blocked` : `so the result of ${event.call.name} was withheld from the model`;
      ops.emit({ type: 'notice', level: 'warn', platform: place.platform, conversation: place.sessionKey, text: `guardrail ${event.guardrail} failed (${event.error}), ${what}` });
    });
  };
}
