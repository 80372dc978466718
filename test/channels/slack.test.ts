/**
 * The channel contract run against the Slack adapter (bolt over HTTP, routes served like the
 * gateway serves them) and the fake Slack: in a direct message, and in a thread of a channel.
 */
import { describeAdapterContract } from './adapter-contract.ts';
import { startSlackHarness } from './slack-harness.ts';

describeAdapterContract('slack (HTTP events, direct message)', () => startSlackHarness());

describeAdapterContract('slack (HTTP events, channel thread)', () =>
  startSlackHarness({ address: { platform: 'slack', conversationId: 'C0GENERAL', threadId: 'new' } }),
);
