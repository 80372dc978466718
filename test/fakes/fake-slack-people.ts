/**
 * The people's side of the fake Slack: messages they post (remembered in their channel, so the
 * bot can react to them and reply in their threads) as `message` and `app_mention` events, button
 * presses as `block_actions` payloads of the bot's stored messages, slash commands, and files they
 * share, served at a private URL.
 */
import { eventEnvelope, type SlackRequest } from './fake-slack-events.ts';
import { displayMessage } from './fake-slack-mrkdwn.ts';
import type { FakeSlackState } from './fake-slack-state.ts';

/** A person (default `U0PERSON1`, Ada). */
export interface FakePerson {
  id?: string;
  name?: string;
}

/** A person's message. */
export interface FakeMessageOptions {
  channel: string;
  /** Default from the channel id: `D…` im, `G…` group, else channel. */
  channelType?: 'im' | 'mpim' | 'channel' | 'group';
  from?: FakePerson;
  text: string;
  threadTs?: string;
  subtype?: string;
  /** Posted by another app's bot. */
  botId?: string;
  files?: Record<string, unknown>[];
}

const defaultPerson = { id: 'U0PERSON1', name: 'Ada' };

function channelTypeOf(channel: string): string {
  return channel.startsWith('D') ? 'im' : channel.startsWith('G') ? 'group' : 'channel';
}

/** Builders bound to one fake's state; `origin` is the fake's `http://127.0.0.1:<port>`. */
export function peopleBuilders(state: FakeSlackState, origin: () => string) {
  const person = (from: FakePerson | undefined) => ({ ...defaultPerson, ...from });
  return {
    /** A person's message event (stored in its channel). */
    personMessage(options: FakeMessageOptions): Record<string, unknown> {
      const from = person(options.from);
      if (!options.botId) state.people.set(from.id, from.name);
      const ts = state.nextTs();
      state.addMessage({ channel: options.channel, ts, user: from.id, text: options.text, ...(options.threadTs ? { threadTs: options.threadTs } : {}), ...(options.botId ? { botId: options.botId } : {}) });
      return {
        type: 'message',
        ...(options.subtype ? { subtype: options.subtype } : {}),
        channel: options.channel,
        channel_type: options.channelType ?? channelTypeOf(options.channel),
        user: from.id,
        ...(options.botId ? { bot_id: options.botId } : { client_msg_id: `cm-${ts}` }),
        text: options.text,
        ts,
        event_ts: ts,
        ...(options.threadTs ? { thread_ts: options.threadTs, parent_user_id: state.bot.userId } : {}),
        ...(options.files ? { files: options.files } : {}),
        team: state.bot.teamId,
      };
    },
    /** The `app_mention` event Slack sends along with the `message` event of a mention. */
    appMention(message: Record<string, unknown>): Record<string, unknown> {
      const { channel_type: _channelType, client_msg_id: _clientId, subtype: _subtype, ...rest } = message;
      return { ...rest, type: 'app_mention' };
    },
    /**
     * The `assistant_thread_started` event of a person opening the app's assistant pane: a new
     * thread in their DM with the app (`channel`, a `D…` id), whose ts the event names.
     */
    assistantThreadStarted(options: { channel: string; from?: FakePerson }): Record<string, unknown> {
      const from = person(options.from);
      state.people.set(from.id, from.name);
      const threadTs = state.nextTs();
      return {
        type: 'assistant_thread_started',
        assistant_thread: { user_id: from.id, context: { team_id: state.bot.teamId, enterprise_id: null }, channel_id: options.channel, thread_ts: threadTs },
        event_ts: threadTs,
      };
    },
    /** An Events API envelope with a fresh event id. */
    envelope(event: Record<string, unknown>): SlackRequest {
      return eventEnvelope(event, { eventId: `Ev0${state.nextNumber()}`, teamId: state.bot.teamId, appId: state.bot.appId, botUserId: state.bot.userId });
    },
    /** A press of the bot's button with `value` under its message `messageTs`. */
    blockAction(options: { channel: string; messageTs: string; value: string; from?: FakePerson }): SlackRequest {
      const message = state.message(options.channel, options.messageTs);
      if (!message) throw new Error(`fake Slack: no message ${options.messageTs} in ${options.channel}`);
      const button = displayMessage(message).buttons?.flat().find((candidate) => candidate.value === options.value);
      if (!button) throw new Error(`fake Slack: message ${options.messageTs} has no button with value ${options.value}`);
      const from = person(options.from);
      const number = state.nextNumber();
      const actionTs = `${Math.floor(Date.now() / 1000)}.${String(number).padStart(6, '0')}`;
      const payload = {
        type: 'block_actions',
        user: { id: from.id, username: from.name.toLowerCase(), name: from.name.toLowerCase(), team_id: state.bot.teamId },
        api_app_id: state.bot.appId,
        token: 'legacy-verification-token',
        container: { type: 'message', message_ts: message.ts, channel_id: message.channel, is_ephemeral: false, ...(message.threadTs ? { thread_ts: message.threadTs } : {}) },
        trigger_id: `${number}.1234.abcdef${number}`,
        team: { id: state.bot.teamId, domain: 'fake-workspace' },
        enterprise: null,
        is_enterprise_install: false,
        channel: { id: message.channel, name: message.channel.startsWith('D') ? 'directmessage' : 'general' },
        message: { type: 'message', user: message.user, ts: message.ts, text: message.text, ...(message.threadTs ? { thread_ts: message.threadTs } : {}), ...(message.blocks ? { blocks: message.blocks } : {}) },
        state: { values: {} },
        response_url: `${origin()}/actions/${number}`,
        actions: [{ type: 'button', action_id: button.actionId, block_id: `operator_buttons_0`, text: { type: 'plain_text', text: button.label, emoji: true }, value: button.value, action_ts: actionTs }],
      };
      return { kind: 'form', fields: { payload: JSON.stringify(payload) } };
    },
    /** A slash command (`/operator <text>` by default) typed in `channel`. */
    slashCommand(options: { channel: string; text: string; command?: string; from?: FakePerson }): SlackRequest {
      const from = person(options.from);
      const number = state.nextNumber();
      return {
        kind: 'form',
        fields: {
          token: 'legacy-verification-token',
          team_id: state.bot.teamId,
          team_domain: 'fake-workspace',
          channel_id: options.channel,
          channel_name: options.channel.startsWith('D') ? 'directmessage' : options.channel.startsWith('G') ? 'privategroup' : 'general',
          user_id: from.id,
          user_name: from.name.toLowerCase(),
          command: options.command ?? '/operator',
          text: options.text,
          api_app_id: state.bot.appId,
          is_enterprise_install: 'false',
          response_url: `${origin()}/commands/${number}`,
          trigger_id: `${number}.5678.fedcba${number}`,
        },
      };
    },
    /**
     * A file a person shares, served at its private URL to the bot's token only. Its content:
     * `bytes`, or `text` in UTF-8 (what a test in workerd can send through the control server).
     */
    hostFile(options: { name: string; mimetype: string } & ({ bytes: Uint8Array } | { text: string })): Record<string, unknown> {
      const id = `F0${state.nextNumber()}`;
      const path = `/files-pri/${state.bot.teamId}-${id}/download/${encodeURIComponent(options.name)}`;
      const bytes = 'bytes' in options ? options.bytes : new TextEncoder().encode(options.text);
      state.files.set(id, { id, name: options.name, mimetype: options.mimetype, bytes, path });
      return {
        id,
        name: options.name,
        title: options.name,
        mimetype: options.mimetype,
        filetype: options.name.split('.').pop() ?? 'binary',
        size: bytes.length,
        url_private: `${origin()}${path.replace('/download/', '/')}`,
        url_private_download: `${origin()}${path}`,
        mode: 'hosted',
        is_external: false,
      };
    },
  };
}

/** The builders' type. */
export type FakePeopleBuilders = ReturnType<typeof peopleBuilders>;
