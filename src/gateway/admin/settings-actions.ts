/**
 * A conversation's settings in the console: what `/config` shows there, and the same changes made
 * by the console's admin (profile, model, thinking, the tool groups granted everyone in it), in
 * `/config`'s words. The conversation need not be in memory: its next turn uses what is set here.
 */
import * as z from 'zod';
import { configCommand, type ConversationSettings } from '../config-command.ts';
import { configParts, type ConfigGateway } from '../config-parts.ts';
import { toolGroups } from '../config/schema.ts';
import type { AdminGateway } from './admin-routes.ts';

/** A change the console asks for: any of the settings, for the conversation `key`. */
export const settingsChange = z
  .object({
    key: z.string().min(1).max(512),
    think: z.enum(['off', 'low', 'medium', 'high', 'default']).optional(),
    model: z.string().min(1).max(128).optional(),
    profile: z.string().min(1).max(64).optional(),
    tools: z.array(z.enum(toolGroups)).max(toolGroups.length).optional(),
  })
  .strict();

/** The settings of conversation `key`, the profiles there are and the tool groups, or why not. */
export async function conversationSettings(gateway: AdminGateway & ConfigGateway, key: string): Promise<{ settings: ConversationSettings; profiles: readonly string[]; toolGroups: readonly string[] } | { error: string }> {
  const parts = await partsOf(gateway, key);
  if ('error' in parts) return parts;
  return { settings: await parts.current(), profiles: await parts.profiles(), toolGroups };
}

/** Applies `change` as an admin's `/config` would; `text` says what was done, a line a setting. */
export async function changeSettings(gateway: AdminGateway & ConfigGateway, change: z.infer<typeof settingsChange>): Promise<{ ok: boolean; text: string }> {
  const parts = await partsOf(gateway, change.key);
  if ('error' in parts) return { ok: false, text: parts.error };
  const lines: string[] = [];
  try {
    if (change.profile !== undefined) lines.push(await parts.setProfile(change.profile === 'default' ? undefined : change.profile));
    if (change.model !== undefined) lines.push(await parts.setModel(change.model === 'default' ? undefined : change.model));
    if (change.think !== undefined) lines.push(String(await configCommand(`think ${change.think}`, parts)));
    if (change.tools !== undefined) {
      await parts.setTools(change.tools);
      lines.push(change.tools.length > 0 ? `Granted everyone here: ${change.tools.join(', ')}.` : 'No tools are granted here from the chat any more.');
    }
  } catch (error) {
    return { ok: false, text: [...lines, error instanceof Error ? error.message : String(error)].join('\n') };
  }
  return { ok: true, text: lines.join('\n') || 'Nothing to change.' };
}

/** `/config`'s parts for conversation `key`, as its admin; the conversation must be on record. */
async function partsOf(gateway: AdminGateway & ConfigGateway, key: string) {
  const platform = key.split(':')[0] ?? '';
  const known = (await gateway.known.all(platform)).find((entry) => entry.sessionKey === key);
  if (!known) return { error: `no conversation ${key} on record` };
  // A direct conversation's person is in its key (`telegram:dm:42`): their profile binding is theirs.
  const senderId = known.scope === 'dm' ? key.split(':').slice(2).join(':') : '';
  const live = await gateway.conversations.peek(key)?.catch(() => undefined);
  return configParts(gateway, live, { sessionKey: key, address: known.address, senderId, admin: true });
}
