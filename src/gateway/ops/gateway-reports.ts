/**
 * Where the gateway's parts report to its events: each conversation's model usage (its turns and,
 * apart, its background reviews) and each channel's link to its platform.
 */
import type { Agent } from '../../agent/agent.ts';
import type { ChannelStatus, InboundMessage } from '../../channels/types.ts';
import { groupLabel, groupOf } from '../access/pairing-group.ts';
import type { AgentPlace } from '../conversations.ts';
import { opsTokens, type OpsEvents } from './ops-events.ts';
import { watchExtensionFailures } from './extension-reports.ts';
import { watchGuardrailFailures } from './guardrail-reports.ts';

/**
 * Reports every model call of `agent` as `model.usage` (kind `turn`), its subagents' (kind
 * `subagent`), and every background review charged to it (kind `review`). The listener lives as
 * long as the agent.
 */
export function watchUsage(ops: OpsEvents): (agent: Agent, place: AgentPlace) => void {
  return (agent, place) => {
    agent.subscribe((event) => {
      if (event.type !== 'model_usage' && event.type !== 'review_usage' && event.type !== 'subagent_usage') return;
      if (!ops.listened) return;
      ops.emit({
        type: 'model.usage',
        platform: place.platform,
        conversation: place.sessionKey,
        profile: place.profile,
        provider: agent.providerName,
        model: event.model,
        tokens: opsTokens(event.usage),
        costUsd: event.cost.total,
        kind: event.type === 'model_usage' ? 'turn' : event.type === 'subagent_usage' ? 'subagent' : 'review',
      });
    });
  };
}

/**
 * Reports a message the access policy refused: a pairing request (with the code an admin
 * approves; in a group, the group's), or a refusal (an allowlist, a closed policy, a declined
 * person, a group no admin approved: `reason` when the policy gave one; `told` whether the
 * sender heard it this time).
 */
export function reportRefusal(ops: OpsEvents, message: InboundMessage, pairingCode: string | undefined, reason?: string, told?: boolean): void {
  const place = { platform: message.address.platform, conversation: message.sessionKey };
  const user = `${place.platform}:${message.sender.id}`;
  if (pairingCode) ops.emit({ type: 'pairing.requested', ...place, user, code: pairingCode, ...(message.scope === 'group' && { group: groupLabel(groupOf(message)) }) });
  else ops.emit({ type: 'message.refused', ...place, reason: reason ?? (message.scope === 'group' ? 'not on the allowlist' : 'not allowed in direct messages'), ...(told !== undefined && { told }) });
}

/** Reports `platform`'s channel status (connection lost and back, rate limits, exceptions stopped at its boundary). */
export function reportChannelStatus(ops: OpsEvents, platform: string): (status: ChannelStatus) => void {
  return (status) => {
    if (status.kind === 'disconnected') ops.emit({ type: 'platform.disconnected', platform, reason: status.reason });
    else if (status.kind === 'reconnected') ops.emit({ type: 'platform.reconnected', platform });
    else if (status.kind === 'outside_error') ops.emit({ type: 'outside.error', platform, source: platform, handling: status.event, error: status.error });
    else ops.emit({ type: 'platform.rate_limited', platform, retryAfterMs: status.retryAfterMs });
  };
}

/** Everything the ops events hear of each agent: its usage, guardrail and extension failures. */
export function watchAgents(ops: OpsEvents): (agent: Agent, place: AgentPlace) => void {
  const watchers = [watchUsage(ops), watchGuardrailFailures(ops), watchExtensionFailures(ops)];
  return (agent, place) => watchers.forEach((watch) => watch(agent, place));
}
