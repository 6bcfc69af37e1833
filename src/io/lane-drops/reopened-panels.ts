/**
 * The ended panel of a lane's agent reopened from the agent list after its
 * lane was dropped (or merged) says what still applies (docs/lanes.md,
 * "Undoing a drop"): `tai lane undrop NAME`, not the merge its footer offered
 * when the agent ended. It hears a panel come back on the board by one
 * identity check per board publish, only while such panels exist.
 */
import { laneNextSteps } from '../../core/lanes/lane-lines.js';
import type { Board } from '../../../store/board.js';
import { LaneStore, type StoredLane } from '../lanes/lane-store.js';
import type { StateDb } from '../storage/state-db.js';

/** Ended lane panels are remembered up to this many (the newest). */
const REMEMBERED_MAX = 64;

/** The ended lane panels of one agent service, and what to say when one comes back. */
export class ReopenedPanels {
  readonly #board: Board;
  readonly #db: StateDb;
  readonly #now: () => number;
  readonly #ended = new Map<number, StoredLane>();
  #unsubscribe: (() => void) | undefined;

  constructor(options: { board: Board; db: StateDb; now: () => number }) {
    this.#board = options.board;
    this.#db = options.db;
    this.#now = options.now;
  }

  /** The agent of `lane` in panel `id` ended. */
  ended(id: number, lane: StoredLane): void {
    this.#ended.set(id, lane);
    for (const old of this.#ended.keys()) if (this.#ended.size > REMEMBERED_MAX) this.#ended.delete(old);
    if (this.#unsubscribe) return;
    let last = this.#board.getState().panels;
    let shown = new Set(last.map((p) => p.id));
    this.#unsubscribe = this.#board.subscribe((s) => {
      if (s.panels === last) return;
      last = s.panels;
      const now = new Set(s.panels.map((p) => p.id));
      for (const panel of now) if (!shown.has(panel) && this.#ended.has(panel)) this.#reopened(panel);
      shown = now;
    });
  }

  dispose(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }

  /** A lane's ended panel is back: when the lane was dropped or merged since, its header and a line say so. */
  #reopened(id: number): void {
    const lane = this.#ended.get(id);
    if (!lane) return;
    const row = new LaneStore(this.#db).get(lane.repo, lane.name);
    if (row && row.mergedAt === null) return;
    const s = this.#board.getState();
    s.tag(id, `⎇ ${lane.name} · ${row ? 'merged' : 'dropped'}`, this.#now());
    s.write(id, `\r\n${laneNextSteps(lane.name, row ? 'merged' : 'dropped')}\r\n`, this.#now());
  }
}
