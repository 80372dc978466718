/**
 * Slack senders' names from `users.info` for group labels: asked once per person an hour, shared
 * by messages that arrive together, the profile's display name first; a failure or a slow answer
 * leaves the id alone for ten minutes, and a missing scope stops the lookups; a name the event
 * gave, and a bot, are never looked up.
 */
import { describe, expect, it } from 'vitest';
import { createSlackUserNames, type SlackUserInfo } from '../../src/channels/slack/user-names.ts';

function scopeError(code: string): Error {
  return Object.assign(new Error(`An API error occurred: ${code}`), { data: { ok: false, error: code } });
}

describe('Slack user names', () => {
  it('asks once an hour per person, taking the profile display name first', async () => {
    let now = 0;
    const asked: string[] = [];
    const names = createSlackUserNames({
      lookup: async (user) => (asked.push(user), { name: 'ada.l', real_name: 'Ada L', profile: { display_name: 'Ada Lovelace', real_name: 'Ada L' } }),
      log: () => {},
      now: () => now,
    });
    const [first, second] = await Promise.all([names.fill({ id: 'U1' }), names.fill({ id: 'U1' })]);
    expect(first).toEqual({ id: 'U1', name: 'Ada Lovelace' });
    expect(second).toEqual(first);
    expect(asked).toEqual(['U1']);
    now += 59 * 60_000;
    await names.fill({ id: 'U1' });
    expect(asked).toEqual(['U1']);
    now += 2 * 60_000;
    await names.fill({ id: 'U1' });
    expect(asked).toEqual(['U1', 'U1']);
    // A name the event gave, and a bot, are not looked up.
    expect(await names.fill({ id: 'U2', name: 'Bea' })).toEqual({ id: 'U2', name: 'Bea' });
    expect(await names.fill({ id: 'B1', isBot: true })).toEqual({ id: 'B1', isBot: true });
    expect(asked).toEqual(['U1', 'U1']);
  });

  it('falls back to the real name, then to none', async () => {
    const infos: Record<string, SlackUserInfo | undefined> = { U1: { name: 'cy', real_name: 'Cy Young', profile: { display_name: '' } }, U2: { name: 'dee' }, U3: undefined };
    const names = createSlackUserNames({ lookup: async (user) => infos[user], log: () => {} });
    expect(await names.fill({ id: 'U1' })).toEqual({ id: 'U1', name: 'Cy Young' });
    expect(await names.fill({ id: 'U2' })).toEqual({ id: 'U2' });
    expect(await names.fill({ id: 'U3' })).toEqual({ id: 'U3' });
  });

  it('leaves a failed or slow lookup without a name for ten minutes', async () => {
    let now = 0;
    let calls = 0;
    const names = createSlackUserNames({
      lookup: async () => {
        calls++;
        throw scopeError('user_not_found');
      },
      log: () => {},
      now: () => now,
    });
    expect(await names.fill({ id: 'U1' })).toEqual({ id: 'U1' });
    now += 9 * 60_000;
    await names.fill({ id: 'U1' });
    expect(calls).toBe(1);
    now += 2 * 60_000;
    await names.fill({ id: 'U1' });
    expect(calls).toBe(2);

    // An answer that never comes holds the message for lookupTimeoutMs, then lets it go unnamed.
    const slow = createSlackUserNames({ lookup: () => new Promise(() => {}), log: () => {} });
    expect(await slow.fill({ id: 'U9' })).toEqual({ id: 'U9' });
  });

  it('stops asking without the users:read scope, and says so once', async () => {
    const lines: string[] = [];
    let calls = 0;
    const names = createSlackUserNames({
      lookup: async () => {
        calls++;
        throw scopeError('missing_scope');
      },
      log: (line) => lines.push(line),
    });
    expect(await names.fill({ id: 'U1' })).toEqual({ id: 'U1' });
    expect(await names.fill({ id: 'U2' })).toEqual({ id: 'U2' });
    expect(calls).toBe(1);
    expect(lines).toEqual(['slack: users.info is not allowed (the app needs the users:read scope): channel messages are labelled by id alone']);
  });
});
