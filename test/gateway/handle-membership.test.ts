/**
 * handleMembership over the real scheduler and store: pausing is idempotent, unblocking resumes
 * only what a block paused, and a store that fails refuses the change (NotAcceptedError, so the
 * platform delivers it again) without losing what was paused before.
 */
import { describe, expect, it } from 'vitest';
import { NotAcceptedError, type MembershipChange } from '../../src/channels/types.ts';
import { handleMembership } from '../../src/gateway/access/handle-membership.ts';
import { Scheduler } from '../../src/gateway/scheduler/index.ts';
import { createStore } from '../../src/store/index.ts';
import { ownerSeat } from '../../src/tools/turn-seat.ts';
import { FaultyStore } from '../helpers/faulty-store.ts';

const admin = { id: '1', admin: true, fromJob: false };

async function setUp() {
  const store = new FaultyStore(createStore({ driver: 'memory' }));
  const scheduler = new Scheduler({ store, run: async () => ({ status: 'ok' }), notify: async () => {}, settings: { timezone: 'UTC' } });
  await scheduler.load();
  const job = async (name: string, conversationId: string) => {
    const target = { sessionKey: `telegram:dm:${conversationId}`, address: { platform: 'telegram', conversationId }, scope: 'dm' as const };
    return (await scheduler.create({ prompt: name, name, every: '1d', target, profile: 'default', seat: ownerSeat }, admin)).job;
  };
  const lines: string[] = [];
  const parts = { scheduler, log: (line: string) => lines.push(line) };
  const states = () => Object.fromEntries(scheduler.list().map((found) => [found.name, found.state]));
  return { store, scheduler, job, lines, parts, states };
}

const change = (kind: MembershipChange['kind'], conversationId: string): MembershipChange => ({ dedupeKey: `k:${kind}`, platform: 'telegram', kind, conversationIds: [conversationId], label: `telegram:dm:${conversationId}`, raw: undefined });

describe('handleMembership', () => {
  it('pauses once, and unblocking resumes only the jobs the block paused', async () => {
    const { scheduler, job, lines, parts, states } = await setUp();
    const own = await job('own', '42');
    await job('paused-by-person', '42');
    await scheduler.pause((await job('other', '42')).id, admin);
    await job('elsewhere', '43');
    await scheduler.pause(scheduler.list().find((found) => found.name === 'paused-by-person')!.id, admin);

    await handleMembership(parts, change('blocked', '42'));
    await handleMembership(parts, change('blocked', '42'));
    expect(states()).toEqual({ own: 'paused', 'paused-by-person': 'paused', other: 'paused', elsewhere: 'active' });
    expect(lines).toEqual([`telegram:dm:42: the person blocked the bot; 1 scheduled job there paused (${own.id})`, 'telegram:dm:42: the person blocked the bot; no scheduled job there']);

    await handleMembership(parts, change('unblocked', '42'));
    expect(states()).toEqual({ own: 'active', 'paused-by-person': 'paused', other: 'paused', elsewhere: 'active' });
    expect(lines.at(-1)).toBe(`telegram:dm:42: the person unblocked the bot; 1 scheduled job there resumed (${own.id})`);
  });

  it('refuses the change when the store fails, so the platform delivers it again', async () => {
    const { store, job, parts, states } = await setUp();
    await job('own', '42');
    store.fail('ENOSPC');
    await expect(handleMembership(parts, change('removed', '42'))).rejects.toBeInstanceOf(NotAcceptedError);
    store.heal();
    await handleMembership(parts, change('removed', '42'));
    expect(states()).toEqual({ own: 'paused' });
  });
});
