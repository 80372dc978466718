/**
 * Doctor check: the Slack bot token is accepted (`auth.test`) at the configured Web API, and
 * then that it was granted the scopes the adapter needs (`slack-scopes.ts`, from the same answer).
 */
import type { SlackSettings } from '../../gateway/config/index.ts';
import { messageOf, requestJson, type CheckResult } from './check.ts';
import { scopesResult } from './slack-scopes.ts';

const name = 'Slack';
const refusals = new Set(['invalid_auth', 'not_authed', 'account_inactive', 'token_revoked', 'token_expired']);

/** The Slack credentials the gateway reads. */
export interface SlackCredentials {
  botToken: string;
  signingSecret?: string;
  appToken?: string;
}

/** Checks the bot token, unless `offline` (then only which credentials are set). */
export async function checkSlack(credentials: SlackCredentials, settings: SlackSettings, offline: boolean): Promise<CheckResult | CheckResult[]> {
  if (!credentials.signingSecret && !credentials.appToken) {
    return { level: 'FAIL', name, detail: 'SLACK_BOT_TOKEN is set, but neither SLACK_SIGNING_SECRET nor SLACK_APP_TOKEN is', fix: 'set SLACK_SIGNING_SECRET (events over HTTP) or SLACK_APP_TOKEN (Socket Mode)' };
  }
  const mode = credentials.appToken ? 'Socket Mode' : 'events over HTTP';
  if (offline) return { level: 'OK', name, detail: `SLACK_BOT_TOKEN is set (${mode}); not contacted (--offline)` };
  const base = (settings.apiUrl ?? 'https://slack.com/api/').replace(/\/*$/, '/');
  const where = settings.apiUrl ? ` at ${base}` : '';
  try {
    const answer = await requestJson(`${base}auth.test`, { method: 'POST', headers: { authorization: `Bearer ${credentials.botToken}`, 'content-type': 'application/x-www-form-urlencoded' }, body: '' }, base);
    const body = (answer.body ?? {}) as { ok?: boolean; error?: string; user?: string; team?: string };
    if (body.ok) return [{ level: 'OK', name, detail: `the bot token is accepted: ${body.user ?? '?'} in ${body.team ?? '?'} (${mode})${where}` }, scopesResult(answer.headers.get('x-oauth-scopes'))];
    const error = body.error ?? `HTTP ${answer.status}`;
    if (refusals.has(error)) return { level: 'FAIL', name, detail: `the bot token is refused (${error})${where}`, fix: 'check SLACK_BOT_TOKEN (the Bot User OAuth Token, xoxb-...)' };
    return { level: 'FAIL', name, detail: `auth.test failed (${error})${where}`, fix: settings.apiUrl ? 'check SLACK_API_URL' : 'try again later' };
  } catch (error) {
    return { level: 'FAIL', name, detail: messageOf(error), fix: settings.apiUrl ? 'check SLACK_API_URL and the network' : 'check the network (and a proxy, if any)' };
  }
}
