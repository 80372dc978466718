/**
 * Kept seats: the lesser of two seats, whether one lies within another, and a kept seat read back
 * from the store (a missing or damaged one is the least seat, never the owner's).
 */
import { describe, expect, it } from 'vitest';
import { leastSeat, lesserSeat, machineGroups, ownerSeat, readSeat, seatWithin, type TurnSeat } from '../../src/tools/turn-seat.ts';

const granted = (groups: TurnSeat['groups'], workspace: TurnSeat['workspace'] = 'shared'): TurnSeat => ({ owner: false, groups, workspace });

describe('kept seats', () => {
  it("is an owner's seat only when both are; else the groups both have and the smaller workspace", () => {
    expect(lesserSeat(ownerSeat, ownerSeat)).toEqual(ownerSeat);
    // An admin's group seat (nothing granted) against their own direct messages: nothing.
    expect(lesserSeat(ownerSeat, leastSeat)).toEqual(leastSeat);
    expect(lesserSeat(leastSeat, ownerSeat)).toEqual(leastSeat);
    // A granted group seat against the owner's: the grant, never the owner's workspace.
    expect(lesserSeat(ownerSeat, granted(['read', 'shell']))).toEqual(granted(['read', 'shell']));
    expect(lesserSeat(granted(['shell', 'write', 'agents']), granted(['agents', 'shell', 'browser']))).toEqual(granted(['shell', 'agents']));
    expect(lesserSeat(granted(['agents'], 'own'), granted(['agents', 'shell']))).toEqual(granted(['agents'], 'own'));
  });

  it('says whether a seat has nothing another lacks', () => {
    expect(seatWithin(leastSeat, ownerSeat)).toBe(true);
    expect(seatWithin(ownerSeat, ownerSeat)).toBe(true);
    expect(seatWithin(ownerSeat, granted([...machineGroups]))).toBe(false);
    expect(seatWithin(granted(['read']), granted(['read', 'shell']))).toBe(true);
    expect(seatWithin(granted(['read', 'shell']), granted(['read']))).toBe(false);
    expect(seatWithin(granted(['agents']), granted(['agents'], 'own'))).toBe(false);
    expect(seatWithin(granted([], 'own'), leastSeat)).toBe(true);
  });

  it('reads a kept seat back; a missing, damaged or foreign one is the least seat, never the owner\'s', () => {
    expect(readSeat(JSON.parse(JSON.stringify(ownerSeat)))).toEqual(ownerSeat);
    expect(readSeat({ owner: false, groups: ['shell', 'read'], workspace: 'shared' })).toEqual(granted(['read', 'shell']));
    for (const damaged of [undefined, null, 'owner', 1, {}, { owner: 'true', groups: [], workspace: 'owner' }, { owner: false, groups: 'shell', workspace: 'shared' }, { owner: false, groups: [], workspace: 'root' }]) {
      expect(readSeat(damaged), JSON.stringify(damaged)).toEqual(leastSeat);
    }
    // Groups it does not know are dropped; the owner's workspace comes only with an owner's seat.
    expect(readSeat({ owner: false, groups: ['shell', 'root', 'everything'], workspace: 'owner' })).toEqual(granted(['shell']));
    // An owner's seat is always the whole of it, and only one that says so with the owner's workspace.
    expect(readSeat({ owner: true, groups: [], workspace: 'owner' })).toEqual(ownerSeat);
    expect(readSeat({ owner: true, groups: ['shell'], workspace: 'own' })).toEqual(granted(['shell'], 'own'));
  });
});
