/**
 * What `/config` (see `config-command.ts`) reads and changes of one conversation, made from the
 * gateway's parts: the model and effort chosen in the store (as `/model` and `/think` keep them),
 * the profile bindings (as `/profile`), and the tools granted the chat (`access/chat-grants.ts`).
 * A change replaces the conversation's agent once a running turn is over.
 */
import type { ConversationAddress } from '../channels/types.ts';
import { isDirectChannel } from '../resources/memory-layers.ts';
import { profileNames } from './admin/profile-actions.ts';
import { saveChatGrants } from './access/chat-grants.ts';
import type { ConfigParts } from './config-command.ts';
import { boundProfile, modelChoiceKey, parseThinkingChoice, thinkingChoiceKey, type Conversation } from './conversations.ts';
import type { Gateway } from './gateway.ts';

/** The gateway's parts `/config` works with. */
export type ConfigGateway = Pick<Gateway, 'runtime' | 'grants' | 'queue' | 'conversations' | 'adapters' | 'config'>;

/** Who asks, where. */
export interface ConfigAsker {
  sessionKey: string;
  address: ConversationAddress;
  senderId: string;
  admin: boolean;
}

/**
 * The `/config` parts of `asker`'s conversation, `conversation` being it as in memory now (unset:
 * not in memory, as for the console; its settings are then read as its next turn would make them).
 */
export function configParts(gateway: ConfigGateway, conversation: Conversation | undefined, asker: ConfigAsker): ConfigParts {
  const { runtime } = gateway;
  const { sessionKey, address } = asker;
  const scope = isDirectChannel(sessionKey) ? 'dm' : 'group';
  const replace = () => gateway.queue.run(sessionKey, () => gateway.conversations.forget(sessionKey));
  return {
    scope,
    admin: asker.admin,
    buttons: gateway.adapters.get(address.platform)?.capabilities.buttons === true,
    async current() {
      const [model, thinking] = await Promise.all([runtime.store.get<string>(modelChoiceKey(sessionKey)), runtime.store.get<string>(thinkingChoiceKey(sessionKey))]);
      const [chosenHere, bindings] = await Promise.all([runtime.bindings.bindings(), runtime.bindings.bindings(gateway.config.profiles)]);
      const bound = scope === 'dm' ? chosenHere.people?.[`${address.platform}:${asker.senderId}`] : chosenHere.channels?.[channelKey(address)];
      const yours = gateway.grants.seatTools({ platform: address.platform, scope, conversationId: address.conversationId, threadId: address.threadId, senderId: asker.senderId, admin: asker.admin });
      const profile = conversation?.profile ?? boundProfile({ address, scope }, asker.senderId, bindings);
      return {
        profile,
        model: conversation?.agent.model ?? (typeof model === 'string' ? runtime.clientFor(model).model : runtime.client.model),
        thinking: conversation ? (conversation.agent.options.reasoningEffort ?? 'off') : (parseThinkingChoice(thinking) ?? runtime.reasoningEffortOf(profile) ?? 'off'),
        chosen: { profile: bound !== undefined, model: typeof model === 'string', thinking: parseThinkingChoice(thinking) !== undefined },
        toolsHere: gateway.grants.chatGroups(address.platform, address.conversationId),
        yours: { owner: yours.owner, groups: [...yours.groups] },
      };
    },
    profiles: () => profileNames(runtime.home, runtime.builtin),
    async setProfile(name) {
      if (name !== undefined) runtime.assertProfile(name);
      const profile = name === 'default' ? undefined : name;
      if (scope === 'dm') await runtime.bindings.bindPerson(`${address.platform}:${asker.senderId}`, profile);
      else await runtime.bindings.bindChannel(channelKey(address), profile);
      await replace();
      return name === undefined ? 'The profile is the configured one again.' : `Profile is now ${name}.`;
    },
    async setModel(name) {
      if (name === undefined) await runtime.store.delete(modelChoiceKey(sessionKey));
      else {
        const client = runtime.clientFor(name);
        await runtime.store.set(modelChoiceKey(sessionKey), name);
        await replace();
        return `Model is now ${client.model}${client.info ? '' : ' (not in the catalog: no prices or limits known)'}.`;
      }
      await replace();
      return 'The model is the configured one again.';
    },
    async setThinking(effort) {
      if (effort === undefined) await runtime.store.delete(thinkingChoiceKey(sessionKey));
      else await runtime.store.set(thinkingChoiceKey(sessionKey), effort);
      await replace();
      return effort === undefined ? "Thinking follows the profile's default again." : `Thinking is now ${effort}.`;
    },
    async setTools(groups) {
      await saveChatGrants(runtime.store, gateway.grants, address.platform, address.conversationId, groups);
      // The agent caches what each seat is offered: the next turn gets a fresh one.
      await replace();
    },
  };
}

/** The key a group's profile binding has: `platform:conversation[:thread]`. */
function channelKey(address: ConversationAddress): string {
  return `${address.platform}:${address.conversationId}${address.threadId ? `:${address.threadId}` : ''}`;
}
