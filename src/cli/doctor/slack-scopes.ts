/**
 * Doctor line: the Slack bot token's granted scopes (the `x-oauth-scopes` header Slack adds to
 * `auth.test`'s answer) against the ones the adapter needs. A missing scope fails only the calls
 * and events that need it, silently for the person, so each is named with what it costs.
 */
import { requiredSlackScopes } from '../../channels/slack/required-scopes.ts';
import type { CheckResult } from './check.ts';

const name = 'Slack scopes';
/** Without this one the bot answers nowhere: a FAIL, where the others cost one feature each. */
const essential = 'chat:write';

/** The line for the scopes `header` lists (null: Slack sent no such header). */
export function scopesResult(header: string | null): CheckResult {
  if (header === null) return { level: 'WARN', name, detail: 'auth.test did not list the granted scopes (no x-oauth-scopes header): not checked', fix: 'compare OAuth & Permissions → Bot Token Scopes with the manifest in src/channels/slack/README.md' };
  const granted = new Set(header.split(',').map((scope) => scope.trim()).filter((scope) => scope !== ''));
  const missing = Object.entries(requiredSlackScopes).filter(([scope]) => !granted.has(scope));
  if (missing.length === 0) return { level: 'OK', name, detail: `all ${Object.keys(requiredSlackScopes).length} the manifest asks for are granted` };
  return {
    level: missing.some(([scope]) => scope === essential) ? 'FAIL' : 'WARN',
    name,
    detail: `not granted: ${missing.map(([scope, use]) => `${scope} (${use})`).join(', ')}`,
    fix: 'add them under OAuth & Permissions → Bot Token Scopes (or from the manifest in src/channels/slack/README.md) and reinstall the app to the workspace',
  };
}
