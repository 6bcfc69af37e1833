/**
 * Every agent event of a board as it happens, for a headless host (issue 7):
 * the board publishes at most one snapshot per flush, never one per event
 * (docs/architecture.md), so the first tap wraps the board's `emit` action
 * once and every listener hangs off that wrapper. Listeners run synchronously
 * before the board sees the event; one that throws is reported to its
 * `onError` and the event still reaches the board.
 */
import type { AgentEvent } from '../../core/events.js';
import type { Board } from '../../../store/board.js';

/** Told each event with its panel's id and time. */
export type EventListener = (id: number, event: AgentEvent, now: number) => void;

const taps = new WeakMap<Board, Set<{ listener: EventListener; onError: (err: unknown) => void }>>();

/** Calls `listener` with every event emitted on `board` until the returned function is called. */
export function tapEvents(board: Board, listener: EventListener, onError: (err: unknown) => void = () => {}): () => void {
  let listeners = taps.get(board);
  if (!listeners) {
    const set = new Set<{ listener: EventListener; onError: (err: unknown) => void }>();
    listeners = set;
    taps.set(board, set);
    const original = board.getState().emit;
    board.setState({
      emit: (id: number, event: AgentEvent, now: number): void => {
        for (const tap of set) {
          try {
            tap.listener(id, event, now);
          } catch (err) {
            tap.onError(err);
          }
        }
        original(id, event, now);
      },
    });
  }
  const tap = { listener, onError };
  listeners.add(tap);
  return () => void listeners.delete(tap);
}
