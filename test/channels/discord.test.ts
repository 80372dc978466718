/**
 * The channel contract run against the Discord adapter and the fake Discord: in a guild thread
 * and in a direct message.
 */
import { describeAdapterContract } from './adapter-contract.ts';
import { startDiscordHarness } from './discord-harness.ts';

describeAdapterContract('discord (guild thread)', () => startDiscordHarness({ where: 'thread' }));

describeAdapterContract('discord (direct message)', () => startDiscordHarness({ where: 'dm' }));
