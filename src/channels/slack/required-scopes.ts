/**
 * The bot token scopes the Slack adapter uses: the one list the app manifest in this folder's
 * README declares (a test keeps them equal) and `operator doctor` compares with what Slack granted.
 */

/** Each bot scope the adapter needs, with what goes missing without it. */
export const requiredSlackScopes: Readonly<Record<string, string>> = {
  'chat:write': 'answers',
  'assistant:write': "assistant threads' status and prompts",
  'reactions:write': 'the working reaction',
  'app_mentions:read': 'mentions',
  'channels:history': 'messages in public channels',
  'groups:history': 'messages in private channels',
  'im:history': 'direct messages',
  'mpim:history': 'group direct messages',
  'files:read': 'files people send',
  'files:write': 'files the agent sends',
  commands: 'the /operator command',
  'channels:read': 'who invited the bot to a public channel, and its removal',
  'groups:read': 'who invited the bot to a private channel, and its removal',
  'users:read': "people's names",
};
