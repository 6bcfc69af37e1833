/**
 * The cockpit's side of a remote agent's lost link (docs/remote.md, "Held
 * during a lost link"): once a second, the hold files (host-holds.ts) are
 * matched to the live panels by process group, and a panel whose local side
 * waits for its host is held on the board as for a machine outage: its header
 * `waiting for HOST`, its wall clock and heartbeat paused, a stop waiting for
 * the host (the local side delivers it at the reattach). When the file goes
 * (reattached, or the wait ended) the hold ends and the clocks run again.
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

/** Looks at the hold files in `dir` every HOLD_LOOK_MS for the candidates `live()` gives; returns the stop. */
export function watchHolds(board: Board, dir: string, live: () => HoldCandidate[], now: () => number): () => void {
  const held = new Map<number, string>();
  const timer = setInterval(() => {
    const candidates = live();
    // Nothing live, nothing held: no folder to read.
    if (candidates.length === 0 && held.size === 0) return;
    try {
      lookAtHolds(board, candidates, held, readHolds(dir), dir, now());
    } catch {
      // A folder that cannot be read now is read at the next look.
    }
  }, HOLD_LOOK_MS);
  timer.unref();
  return () => clearInterval(timer);
}
