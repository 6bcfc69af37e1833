/**
 * Every agent event of a board as it happens, for a host that wants each one
 * (docs/embedding.md): the board publishes at most one snapshot per
 * flush, never one per event, so a headless host that logs or relays events
 * listens here instead. Listeners are told synchronously, in the order they
 * were added, before the board sees the event; one that throws is reported
 * to its `onError` and the event still reaches the board and the others.
 * With nobody listening, the board's emit checks one array's length.
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
