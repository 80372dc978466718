/**
 * The turn bookkeeping of each conversation with work in flight: the messages waiting for a turn,
 * those offered to the running turn as steering, and those an interrupted turn left to the next.
 * It is kept apart from the live conversation, which `/new` or `/profile` may replace while
 * messages wait, and is dropped once nothing is in flight (idle conversations cost nothing here).
 */
import { Steering } from './steering.ts';
import { WaitingMessages } from './waiting-messages.ts';

/** One conversation's turn bookkeeping. */
export interface TurnLane {
  waiting: WaitingMessages;
  steering: Steering;
  /** Inbox keys a turn interrupted before it said anything left to the next turn to answer. */
  carried: string[];
  /** The running turn was interrupted by a newer message (`busyMode: "interrupt"`). */
  interrupted: boolean;
  /** The preview an interrupted turn showed without saying anything final: the next turn finishes it. */
  carriedPreview?: string;
  /** Turns queued or running. */
  turns: number;
}

/** Turn bookkeeping per session key. */
export class TurnLanes {
  #lanes = new Map<string, TurnLane>();

  /** The lane of `sessionKey`, created when there is none. */
  get(sessionKey: string): TurnLane {
    let lane = this.#lanes.get(sessionKey);
    if (!lane) {
      const waiting = new WaitingMessages();
      lane = { waiting, steering: new Steering(waiting), carried: [], interrupted: false, turns: 0 };
      this.#lanes.set(sessionKey, lane);
    }
    return lane;
  }

  /** The lane of `sessionKey` if it has work in flight. */
  peek(sessionKey: string): TurnLane | undefined {
    return this.#lanes.get(sessionKey);
  }

  /** Whether `key` waits in any lane (its turn is queued, not yet begun). */
  waits(key: string): boolean {
    for (const lane of this.#lanes.values()) if (lane.waiting.has(key)) return true;
    return false;
  }

  /** Drops the lane of `sessionKey` when nothing is in flight there any more. */
  release(sessionKey: string): void {
    const lane = this.#lanes.get(sessionKey);
    if (lane && lane.turns === 0 && lane.waiting.size === 0 && lane.carried.length === 0) this.#lanes.delete(sessionKey);
  }
}
