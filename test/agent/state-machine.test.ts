import { describe, expect, it } from 'vitest';
import { InvalidTransitionError, LifecycleStateMachine, validTransitions } from '../../src/agent/state-machine.ts';
import type { LifecycleState } from '../../src/agent/state-machine.ts';

const states: LifecycleState[] = ['IDLE', 'INITIALIZING', 'RUNNING', 'PAUSED', 'COMPLETING', 'ERROR', 'DISPOSED'];

/** Drives a fresh machine into `state` through valid transitions. */
function machineIn(state: LifecycleState): LifecycleStateMachine {
  const paths: Record<LifecycleState, LifecycleState[]> = {
    IDLE: [],
    INITIALIZING: ['INITIALIZING'],
    RUNNING: ['INITIALIZING', 'RUNNING'],
    PAUSED: ['INITIALIZING', 'RUNNING', 'PAUSED'],
    COMPLETING: ['INITIALIZING', 'RUNNING', 'COMPLETING'],
    ERROR: ['INITIALIZING', 'ERROR'],
    DISPOSED: ['DISPOSED'],
  };
  const machine = new LifecycleStateMachine();
  for (const step of paths[state]) machine.transition(step);
  expect(machine.state).toBe(state);
  return machine;
}

describe('lifecycle state machine', () => {
  it('has exactly 18 valid transitions', () => {
    const count = Object.values(validTransitions).reduce((sum, targets) => sum + targets.length, 0);
    expect(count).toBe(18);
  });

  for (const from of states) {
    for (const to of states) {
      const valid = validTransitions[from].includes(to);
      it(`${from} -> ${to} is ${valid ? 'allowed' : 'refused'}`, () => {
        const machine = machineIn(from);
        if (valid) {
          machine.transition(to);
          expect(machine.state).toBe(to);
          expect(machine.history.at(-1)).toEqual([from, to]);
        } else {
          let caught: unknown;
          try {
            machine.transition(to);
          } catch (error) {
            caught = error;
          }
          expect(caught).toBeInstanceOf(InvalidTransitionError);
          expect((caught as InvalidTransitionError).from).toBe(from);
          expect((caught as InvalidTransitionError).to).toBe(to);
          expect(machine.state).toBe(from);
        }
      });
    }
  }

  it('runs the convenience methods through a whole turn', () => {
    const machine = new LifecycleStateMachine();
    machine.initialize();
    machine.start();
    machine.pause();
    machine.resume();
    machine.complete();
    machine.finish();
    machine.initialize();
    machine.fail(new Error('boom'));
    machine.recover();
    machine.dispose();
    expect(machine.history).toEqual([
      ['IDLE', 'INITIALIZING'],
      ['INITIALIZING', 'RUNNING'],
      ['RUNNING', 'PAUSED'],
      ['PAUSED', 'RUNNING'],
      ['RUNNING', 'COMPLETING'],
      ['COMPLETING', 'IDLE'],
      ['IDLE', 'INITIALIZING'],
      ['INITIALIZING', 'ERROR'],
      ['ERROR', 'IDLE'],
      ['IDLE', 'DISPOSED'],
    ]);
  });

  it('tells listeners and swallows their exceptions', () => {
    const machine = new LifecycleStateMachine();
    const seen: string[] = [];
    machine.onTransition(() => {
      throw new Error('listener bug');
    });
    const off = machine.onTransition((from, to, metadata) => seen.push(`${from}->${to}${metadata ? ' with metadata' : ''}`));
    machine.initialize();
    machine.fail('why');
    off();
    machine.recover();
    expect(seen).toEqual(['IDLE->INITIALIZING', 'INITIALIZING->ERROR with metadata']);
    expect(machine.state).toBe('IDLE');
  });

  it('keeps a bounded history', () => {
    const machine = new LifecycleStateMachine();
    for (let i = 0; i < 100; i++) {
      machine.initialize();
      machine.fail();
      machine.recover();
    }
    expect(machine.history.length).toBeLessThanOrEqual(50);
  });
});
