/**
 * Who the bot is on Slack, for telling its own messages from the people's: asked of `auth.test`
 * once per isolate and token, as the Node channel asks once at start. A failed question is not
 * kept, so the next event asks again (the webhook answers 503 meanwhile and Slack redelivers).
 */
import type { SlackIdentity } from '../channels/slack/inbound.ts';
import { DeliveryError } from '../channels/types.ts';
import type { SlackApi } from './slack-web-api.ts';

/** Answers by bot token (kept in memory only, as the token itself is). */
const known = new Map<string, Promise<SlackIdentity>>();

/**
 * The bot behind `token`, asked through `slack` the first time.
 *
 * @example
 * const bot = await slackIdentity(env.SLACK_BOT_TOKEN, createSlackApi({ token: env.SLACK_BOT_TOKEN }));
 */
export function slackIdentity(token: string, slack: SlackApi): Promise<SlackIdentity> {
  let identity = known.get(token);
  if (!identity) {
    identity = ask(slack);
    known.set(token, identity);
    identity.catch(() => known.delete(token));
  }
  return identity;
}

async function ask(slack: SlackApi): Promise<SlackIdentity> {
  const answer = await slack('auth.test', {});
  if (typeof answer.user_id !== 'string' || typeof answer.team_id !== 'string') {
    throw new DeliveryError('Slack auth.test answered without user_id/team_id (is SLACK_BOT_TOKEN a bot token?)', { retryable: false });
  }
  return { userId: answer.user_id, botId: typeof answer.bot_id === 'string' ? answer.bot_id : '', teamId: answer.team_id };
}
