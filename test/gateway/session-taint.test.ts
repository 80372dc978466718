/**
 * A session's taint in the store: a page a tool read taints the session's later turns (after a
 * restart too), another person's words taint a group's turns, a new session starts clean, a
 * direct message writes nothing until something untrusted comes in, and a store that fails
 * reads or writes is logged without losing the turn's own taint.
 */
import { describe, expect, it } from 'vitest';
import { otherBotSource, otherPeopleSource, SessionTaints } from '../../src/gateway/session-taint.ts';
import { createStore } from '../../src/store/unstorage-store.ts';
import { FaultyStore } from '../helpers/faulty-store.ts';

const page = 'a web page (https://evil.example/)';
const dm = { sessionId: 's-dm', scope: 'dm' as const, speaker: 'telegram:1', othersHeard: false };
const group = { sessionId: 's-group', scope: 'group' as const, othersHeard: false };

describe('session taint', () => {
  it('keeps what a turn read for the later turns of the session, across a restart', async () => {
    const store = createStore({ driver: 'memory' });
    const taints = new SessionTaints({ store, mode: 'approve', log: () => {} });
    const first = await taints.begin(dm);
    expect(first.tainted).toBe(false);
    // Talking alone writes nothing.
    await taints.settled();
    expect(await store.list('taint:')).toEqual([]);
    first.add(page);
    await taints.settled();
    expect((await taints.begin(dm)).sources).toEqual([page]);
    const restarted = new SessionTaints({ store, mode: 'approve', log: () => {} });
    expect((await restarted.begin(dm)).sources).toEqual([page]);
    // A new session (`/new`) has its own id: clean.
    expect((await restarted.begin({ ...dm, sessionId: 's-new' })).tainted).toBe(false);
  });

  it("taints a group's turns once someone other than the speaker talked", async () => {
    const taints = new SessionTaints({ store: createStore({ driver: 'memory' }), mode: 'approve', log: () => {} });
    expect((await taints.begin({ ...group, speaker: 'telegram:1' })).tainted).toBe(false);
    expect((await taints.begin({ ...group, speaker: 'telegram:1' })).tainted).toBe(false);
    expect((await taints.begin({ ...group, speaker: 'telegram:2' })).sources).toEqual([otherPeopleSource]);
    // The first speaker's next turn holds the second one's message.
    expect((await taints.begin({ ...group, speaker: 'telegram:1' })).sources).toEqual([otherPeopleSource]);
    // Overheard messages taint the first turn of all, and the turns after it (they stay in the context).
    expect((await taints.begin({ ...group, sessionId: 's-other', speaker: 'telegram:3', othersHeard: true })).sources).toEqual([otherPeopleSource]);
    expect((await taints.begin({ ...group, sessionId: 's-other', speaker: 'telegram:3' })).sources).toEqual([otherPeopleSource]);
  });

  it("taints a turn another bot speaks in, and the session's later turns", async () => {
    const taints = new SessionTaints({ store: createStore({ driver: 'memory' }), mode: 'approve', log: () => {} });
    expect((await taints.begin({ ...group, sessionId: 's-bot', speaker: 'slack:B1', speakerIsBot: true })).sources).toEqual([otherBotSource]);
    expect((await taints.begin({ ...dm, sessionId: 's-bot-dm', speakerIsBot: true })).sources).toEqual([otherBotSource]);
    expect((await taints.begin({ ...dm, sessionId: 's-bot-dm' })).sources).toEqual([otherBotSource]);
  });

  it('tracks nothing in off mode', async () => {
    const store = createStore({ driver: 'memory' });
    const taints = new SessionTaints({ store, mode: 'off', log: () => {} });
    const turn = await taints.begin({ ...group, speaker: 'telegram:2', othersHeard: true });
    expect(turn.mode).toBe('off');
    expect(turn.tainted).toBe(false);
    expect(await store.list('taint:')).toEqual([]);
  });

  it('logs a store that fails, and keeps the taint in memory', async () => {
    const store = new FaultyStore(createStore({ driver: 'memory' }));
    const lines: string[] = [];
    const taints = new SessionTaints({ store, mode: 'approve', log: (line) => lines.push(line) });
    store.fail('EIO');
    const turn = await taints.begin(dm);
    turn.add(page);
    await taints.settled();
    expect(lines.some((line) => line.startsWith('taint of session s-dm not kept:'))).toBe(true);
    expect((await taints.begin(dm)).sources).toEqual([page]);
    store.fail('EIO', { reads: true });
    const other = new SessionTaints({ store, mode: 'approve', log: (line) => lines.push(line) });
    expect((await other.begin(dm)).tainted).toBe(false);
    expect(lines.some((line) => line.startsWith('taint of session s-dm not read:'))).toBe(true);
  });
});
