/**
 * Every agent event of a board as it happens, for a host that wants each (docs/embedding.md), as the board
 * publishes at most a snapshot a flush. Listeners are told in order, before the board; one that throws is told to
 * its `onError`, and the event goes on. With none, emit checks one array's length.
 */
import type { AgentEvent } from '../src/core/events.js';
import type { Board, EventListener } from './board-types.js';

interface Tap {
  readonly listener: EventListener;
  readonly onError: (err: unknown) => void;
}

/** A board's listeners: replaced, never changed, so a listener may remove itself while being told. */
export class EventTaps {
  /** The listeners now; empty when nobody listens (emit's one check). */
  taps: readonly Tap[] = [];

  /** Adds a listener; returns the function that removes it. */
  add(listener: EventListener, onError: (err: unknown) => void): () => void {
    const tap: Tap = { listener, onError };
    this.taps = [...this.taps, tap];
    return () => {
      this.taps = this.taps.filter((t) => t !== tap);
    };
  }

  /** Tells every listener one event. */
  tell(id: number, event: AgentEvent, now: number): void {
    for (const tap of this.taps) {
      try {
        tap.listener(id, event, now);
      } catch (err) {
        tap.onError(err);
      }
    }
  }
}

/** Calls `listener` with every event emitted on `board` until the returned function is called (the board's `listen`). */
export function tapEvents(board: Board, listener: EventListener, onError?: (err: unknown) => void): () => void {
  return board.getState().listen(listener, onError);
}
