/**
 * The channel contract run against the Slack adapter in Socket Mode (bolt and
 * `@slack/socket-mode` on the fake Slack's websocket), in a direct message.
 */
import { describeAdapterContract } from './adapter-contract.ts';
import { startSlackSocketHarness } from './slack-socket-harness.ts';

describeAdapterContract('slack (Socket Mode, direct message)', () => startSlackSocketHarness());
