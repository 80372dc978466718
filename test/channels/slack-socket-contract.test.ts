/**
 * The channel contract run against the Slack adapter in Socket Mode (bolt and
 * `@slack/socket-mode` on the fake Slack's websocket): in a direct message, and in a thread of a
 * channel.
 */
import { describeAdapterContract } from './adapter-contract.ts';
import { startSlackSocketHarness } from './slack-socket-harness.ts';

describeAdapterContract('slack (Socket Mode, direct message)', () => startSlackSocketHarness());

describeAdapterContract('slack (Socket Mode, channel thread)', () =>
  startSlackSocketHarness({ address: { platform: 'slack', conversationId: 'C0GENERAL', threadId: 'new' } }),
);
