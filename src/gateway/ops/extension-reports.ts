/**
 * Where an extension's handler or a tool that threw is reported. The agent stops an extension's
 * throw at its own boundary (`agent/extensions.ts`: the handler is skipped, the turn goes on) and
 * keeps the failure in `extensionErrors`; the engine stops a tool's (its message becomes the
 * tool's error result, which the model reads) and marks the call's end `threw`. Here each becomes
 * an `outside.error` event (source `extension` with the agent event it was handling, or source
 * `tool` with the tool's name), logged and counted in `operator_outside_errors_total`. The
 * failure's message is not passed on: it may quote what the code was given (a person's text).
 * The extension's file name, or the tool's name, says where to look.
 */
import { basename } from 'node:path';
import type { Agent } from '../../agent/agent.ts';
import type { AgentPlace } from '../conversations.ts';
import type { OpsEvents } from './ops-events.ts';

/** Agent events after which new failures are looked for: the end of a turn, however it ended. */
const checkpoints = new Set(['agent_end', 'turn_error', 'settled']);

/** Reports every new extension failure and tool throw of `agent`; the listener lives as long as the agent. */
export function watchExtensionFailures(ops: OpsEvents): (agent: Agent, place: AgentPlace) => void {
  return (agent, place) => {
    // The failures are kept as objects (the newest 100): one reported is never reported again.
    const reported = new WeakSet<object>();
    agent.subscribe((event) => {
      if (event.type === 'tool_execution_end' && event.threw) {
        ops.emit({ type: 'outside.error', platform: place.platform, conversation: place.sessionKey, source: 'tool', handling: event.call.name, error: `the tool ${event.call.name} threw` });
      }
      if (!checkpoints.has(event.type)) return;
      for (const failure of agent.extensionErrors) {
        if (reported.has(failure)) continue;
        reported.add(failure);
        ops.emit({ type: 'outside.error', platform: place.platform, conversation: place.sessionKey, source: 'extension', handling: failure.event, error: `a handler of ${basename(failure.extension)} threw` });
      }
    });
  };
}
