/**
 * The contract every channel adapter passes (Telegram, Discord and Slack run it; the web chat has
 * its own tests, its other side being a browser). A platform plugs in through an
 * {@link AdapterHarness}: its adapter (not yet started), a conversation to talk in, and the
 * platform-side powers of its fake (deliver a person's text, press a button, read what the bot's
 * messages show now).
 *
 * @example
 * describeAdapterContract('telegram', async () => telegramHarness());
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Button, ChannelAction, ChannelAdapter, ConversationAddress, InboundMessage } from '../../src/channels/types.ts';
import { binaryBytes, textBytes, writeOutboundFiles } from './outbound-files.ts';

/** One of the bot's messages as the platform shows it now (after edits). */
export interface SentRecord {
  id: string;
  /** The visible text (markup rendered away). */
  text: string;
  /** What counts against `capabilities.maxLength` (default: `text.length`). */
  length?: number;
  /** Contents of the preformatted (code) blocks, as displayed. */
  codeBlocks: string[];
  buttons?: Button[][];
}

/** A file the bot sent, as the platform stores it. */
export interface SentFileRecord {
  /** The file name the chat shows. */
  name: string;
  /** The file's content as the platform received it. */
  bytes: Uint8Array;
}

/** A delivery the platform can make again (same event, same ids), as after a lost acknowledgement. */
export interface Delivery {
  redeliver(): Promise<void>;
}

/** What an adapter's test setup provides to the contract suite. */
export interface AdapterHarness {
  /** The adapter under test, not yet started. */
  adapter: ChannelAdapter;
  /** A conversation in which a person talks to the bot. */
  address: ConversationAddress;
  /** Makes the platform deliver a person's text message in `address` to the adapter. */
  deliverText(address: ConversationAddress, text: string): Promise<Delivery>;
  /** The bot's messages in `address`, oldest first. */
  sent(address: ConversationAddress): Promise<SentRecord[]>;
  /**
   * The files the bot sent in `address`, oldest first (only for adapters whose
   * `capabilities.maxFileBytes > 0`).
   */
  sentFiles?(address: ConversationAddress): Promise<SentFileRecord[]>;
  /** Makes the platform deliver a press of the button `data` under message `messageId`. */
  pressButton(address: ConversationAddress, messageId: string, data: string): Promise<void>;
  /** Whether the platform saw the press `action` acknowledged. */
  actionAnswered(action: ChannelAction): Promise<boolean>;
  /** Releases the fake platform (after the suite stopped the adapter). */
  close(): Promise<void>;
}

function longCodeMessage(maxLength: number): { text: string; codeLines: string[] } {
  const count = Math.ceil((maxLength * 2.5) / 40);
  const codeLines = Array.from({ length: count }, (_, index) => `line ${String(index).padStart(5, '0')}: value = ${index} * 2; // <&>`);
  const text = ['Intro paragraph before the code.', '', '```ts', ...codeLines, '```', '', 'Outro paragraph after the code.'].join('\n');
  return { text, codeLines };
}

/** Registers the contract suite for one adapter. */
export function describeAdapterContract(name: string, setup: () => Promise<AdapterHarness>): void {
  describe(`channel adapter contract: ${name}`, () => {
    let harness: AdapterHarness;
    let messages: InboundMessage[];
    let actions: ChannelAction[];

    beforeEach(async () => {
      harness = await setup();
      messages = [];
      actions = [];
      await harness.adapter.start({
        onMessage: async (message) => void messages.push(message),
        onAction: async (action) => void actions.push(action),
      });
    });

    afterEach(async () => {
      await harness.adapter.stop();
      await harness.close();
    });

    it('declares sensible capabilities', () => {
      const { capabilities, platform } = harness.adapter;
      expect(platform).toBe(harness.address.platform);
      expect(capabilities.maxLength).toBeGreaterThan(0);
      expect(capabilities.editIntervalMs).toBeGreaterThanOrEqual(0);
      if (capabilities.commandMenu) expect(harness.adapter.setCommands).toBeTypeOf('function');
      if (capabilities.buttons) expect(harness.adapter.answerAction).toBeTypeOf('function');
    });

    it('delivers an inbound text to onMessage with the neutral fields', async () => {
      await harness.deliverText(harness.address, 'hello there');
      const message = await vi.waitFor(() => messages[0] ?? Promise.reject(new Error('no message yet')));
      expect(message.text).toBe('hello there');
      expect(message.address.platform).toBe(harness.address.platform);
      expect(message.address.conversationId).toBe(harness.address.conversationId);
      expect(message.address.threadId).toBe(harness.address.threadId);
      expect(message.sessionKey.startsWith(`${harness.address.platform}:`)).toBe(true);
      expect(message.id).not.toBe('');
      expect(message.dedupeKey).not.toBe('');
      expect(message.sender.id).not.toBe('');
      expect(message.attachments).toEqual([]);
      expect(['dm', 'group']).toContain(message.scope);
      if (message.scope === 'dm') expect(message.mentioned).toBe(true);
      expect(typeof message.receivedAt).toBe('number');
      expect(message.raw).toBeDefined();
    });

    it('send returns the id of what it sent', async () => {
      const before = (await harness.sent(harness.address)).length;
      const result = await harness.adapter.send(harness.address, { text: 'Hello, world' });
      expect(result.ids).toHaveLength(1);
      const sent = await harness.sent(harness.address);
      expect(sent).toHaveLength(before + 1);
      expect(sent.at(-1)).toMatchObject({ id: result.ids[0], text: 'Hello, world' });
    });

    it('edit replaces the text of a sent message', async () => {
      const { ids } = await harness.adapter.send(harness.address, { text: 'Working on it' });
      await harness.adapter.edit(harness.address, ids[0]!, { text: 'Done: all good' });
      const sent = await harness.sent(harness.address);
      expect(sent.find((record) => record.id === ids[0])?.text).toBe('Done: all good');
      await harness.adapter.edit(harness.address, ids[0]!, { text: 'Done: all good' });
    });

    it('splits a long message within maxLength without breaking its code block', async () => {
      const { maxLength } = harness.adapter.capabilities;
      const { text, codeLines } = longCodeMessage(maxLength);
      const before = (await harness.sent(harness.address)).length;
      const result = await harness.adapter.send(harness.address, { text });
      const sent = (await harness.sent(harness.address)).slice(before);
      expect(result.ids.length).toBeGreaterThan(1);
      expect(sent.map((record) => record.id)).toEqual(result.ids);
      for (const record of sent) expect(record.length ?? record.text.length).toBeLessThanOrEqual(maxLength);
      const shownCode = sent.flatMap((record) => record.codeBlocks).flatMap((block) => block.split('\n')).filter((line) => line !== '');
      expect(shownCode).toEqual(codeLines);
      expect(sent[0]!.text).toContain('Intro paragraph before the code.');
      expect(sent.at(-1)!.text).toContain('Outro paragraph after the code.');
      expect(sent.flatMap((record) => record.codeBlocks).join('\n')).not.toMatch(/Intro|Outro|```/);
    });

    it('turns a message of its own into the first part of a long message (replace), sending the rest', async () => {
      if (!harness.adapter.capabilities.edit) return;
      const { maxLength } = harness.adapter.capabilities;
      const { text, codeLines } = longCodeMessage(maxLength);
      const before = (await harness.sent(harness.address)).length;
      const preview = (await harness.adapter.send(harness.address, { text: 'Intro paragraph …' })).ids[0]!;
      const result = await harness.adapter.send(harness.address, { text, replace: preview });
      const sent = (await harness.sent(harness.address)).slice(before);
      expect(result.ids[0]).toBe(preview);
      expect(sent.map((record) => record.id)).toEqual(result.ids);
      expect(sent[0]!.text).toContain('Intro paragraph before the code.');
      expect(sent.map((record) => record.text).join('\n')).not.toContain('…');
      const shownCode = sent.flatMap((record) => record.codeBlocks).flatMap((block) => block.split('\n')).filter((line) => line !== '');
      expect(shownCode).toEqual(codeLines);
    });

    it('sends only the parts after skipParts (a retry after a partial delivery)', async () => {
      const { maxLength } = harness.adapter.capabilities;
      const { text } = longCodeMessage(maxLength);
      const before = (await harness.sent(harness.address)).length;
      const whole = await harness.adapter.send(harness.address, { text });
      const middle = (await harness.sent(harness.address)).length;
      const rest = await harness.adapter.send(harness.address, { text, skipParts: 1 });
      const all = await harness.sent(harness.address);
      expect(rest.ids).toHaveLength(whole.ids.length - 1);
      expect(all.slice(middle).map((record) => record.text)).toEqual(all.slice(before + 1, middle).map((record) => record.text));
    });

    it('sends files after the text, counted as parts', async () => {
      if (!(harness.adapter.capabilities.maxFileBytes > 0)) return;
      expect(harness.sentFiles, 'an adapter that sends files needs a harness with sentFiles').toBeTypeOf('function');
      const contents = [textBytes('first file\n'), binaryBytes(3000)];
      const files = await writeOutboundFiles([
        { name: 'notes.txt', bytes: contents[0]!, mediaType: 'text/plain' },
        { name: 'data.bin', bytes: contents[1]! },
      ]);
      const before = (await harness.sentFiles!(harness.address)).length;
      const result = await harness.adapter.send(harness.address, { text: 'Here are the files', files });
      expect(result.ids).toHaveLength(3);
      expect(new Set(result.ids).size).toBe(3);
      expect((await harness.sent(harness.address)).find((record) => record.id === result.ids[0])?.text).toBe('Here are the files');
      const arrived = (await harness.sentFiles!(harness.address)).slice(before);
      expect(arrived.map((file) => file.name)).toEqual(['notes.txt', 'data.bin']);
      expect(arrived.map((file) => [...file.bytes])).toEqual(contents.map((bytes) => [...bytes]));

      // A retry after the first file arrived sends only the second one.
      const retry = await harness.adapter.send(harness.address, { text: 'Here are the files', files, skipParts: 2 });
      expect(retry.ids).toHaveLength(1);
      expect((await harness.sentFiles!(harness.address)).slice(before).map((file) => file.name)).toEqual(['notes.txt', 'data.bin', 'data.bin']);
    });

    it('round-trips a button press as an action', async () => {
      if (!harness.adapter.capabilities.buttons) return;
      const buttons = [[{ label: 'Approve', data: 'approve' }, { label: 'Deny', data: 'deny' }]];
      const { ids } = await harness.adapter.send(harness.address, { text: 'Run the command?', buttons });
      const record = (await harness.sent(harness.address)).find((candidate) => candidate.id === ids.at(-1));
      expect(record?.buttons).toEqual(buttons);
      await harness.pressButton(harness.address, ids.at(-1)!, 'deny');
      const action = await vi.waitFor(() => actions[0] ?? Promise.reject(new Error('no action yet')));
      expect(action).toMatchObject({ data: 'deny', messageId: ids.at(-1) });
      expect(action.address.conversationId).toBe(harness.address.conversationId);
      expect(action.address.threadId).toBe(harness.address.threadId);
      expect(action.dedupeKey).not.toBe('');
      await harness.deliverText(harness.address, 'same conversation');
      const message = await vi.waitFor(() => messages[0] ?? Promise.reject(new Error('no message yet')));
      expect(action.sessionKey).toBe(message.sessionKey);
      await harness.adapter.answerAction!(action, 'Denied.');
      expect(await harness.actionAnswered(action)).toBe(true);
    });

    it('keeps the dedupe key stable when the platform delivers again', async () => {
      const delivery = await harness.deliverText(harness.address, 'only once please');
      await vi.waitFor(() => messages[0] ?? Promise.reject(new Error('no message yet')));
      await delivery.redeliver();
      await vi.waitFor(() => messages[1] ?? Promise.reject(new Error('no redelivery yet')));
      expect(messages[1]!.dedupeKey).toBe(messages[0]!.dedupeKey);
      expect(messages[1]!.id).toBe(messages[0]!.id);
      await harness.deliverText(harness.address, 'another message');
      await vi.waitFor(() => messages[2] ?? Promise.reject(new Error('no third message yet')));
      expect(messages[2]!.dedupeKey).not.toBe(messages[0]!.dedupeKey);
    });
  });
}
