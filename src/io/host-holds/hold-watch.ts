/**
 * The cockpit's side of a remote agent's lost link (docs/remote.md, "Held during a lost link"): hold files matched
 * to live panels by process group, and such a panel held as for a machine outage (header `waiting for HOST`,
 * clocks paused, a stop delivered at the reattach) until its file goes.
 */
import { isLive } from '../../core/panel/panel-state.js';
import type { Board } from '../../../store/board.js';
import { readHolds, writeHoldPanel, type HeldAgent } from './host-holds.js';

/** How often the hold files are looked at. */
export const HOLD_LOOK_MS = 1_000;

/** A live agent as the watch sees it: its panel, label and process group. */
export interface HoldCandidate {
  readonly panel: number;
  readonly label: string;
  readonly pgid: number | undefined;
  /** An agent on another host: only its local side ever writes a hold file. */
  readonly remote: boolean;
}

/** One look: holds the panels whose local side waits for its host, resumes those whose wait ended. */
export function lookAtHolds(board: Board, candidates: readonly HoldCandidate[], held: Map<number, string>, holds: readonly HeldAgent[], dir: string, now: number): void {
  const byPid = new Map(holds.map((hold) => [hold.pid, hold]));
  const panels = new Map(board.getState().panels.map((p) => [p.id, p]));
  const seen = new Set<number>();
  for (const candidate of candidates) {
    const view = panels.get(candidate.panel);
    if (view === undefined || !isLive(view.state)) continue;
    seen.add(candidate.panel);
    const hold = candidate.pgid === undefined ? undefined : byPid.get(candidate.pgid);
    if (hold !== undefined && !held.has(candidate.panel)) {
      // A panel already held (for the network) is left to that hold.
      if (view.state === 'waiting') continue;
      board.getState().hold(candidate.panel, hold.host, now, { stopWaits: true });
      held.set(candidate.panel, hold.host);
      writeHoldPanel(hold.pid, { panel: candidate.panel, label: candidate.label }, dir);
    } else if (hold === undefined && held.has(candidate.panel)) {
      held.delete(candidate.panel);
      board.getState().resume(candidate.panel, now);
    }
  }
  for (const id of [...held.keys()]) if (!seen.has(id)) held.delete(id);
}

/** What the watch reads each look (readHolds; tests count the reads). */
export type ReadHolds = (dir: string) => HeldAgent[];

/**
 * Looks at `dir`'s hold files every HOLD_LOOK_MS only while `live()` gives a remote agent or a held panel (only a
 * remote agent writes one, so a cockpit of local agents never wakes); board changes arm the look. Returns the stop.
 */
export function watchHolds(board: Board, dir: string, live: () => HoldCandidate[], now: () => number, read: ReadHolds = readHolds): () => void {
  const held = new Map<number, string>();
  let timer: NodeJS.Timeout | undefined;
  const wanted = (candidates: readonly HoldCandidate[]): boolean => held.size > 0 || candidates.some((c) => c.remote);
  const look = (): void => {
    const candidates = live();
    if (!wanted(candidates)) return disarm();
    try {
      lookAtHolds(board, candidates, held, read(dir), dir, now());
    } catch {
      // A folder that cannot be read now is read at the next look.
    }
    if (!wanted(candidates)) disarm();
  };
  const disarm = (): void => {
    clearInterval(timer);
    timer = undefined;
  };
  const arm = (): void => {
    if (timer !== undefined || !wanted(live())) return;
    timer = setInterval(look, HOLD_LOOK_MS);
    timer.unref();
  };
  const unsubscribe = board.subscribe((state, before) => {
    if (state.panels !== before.panels) arm();
  });
  arm();
  return () => {
    unsubscribe();
    disarm();
  };
}
