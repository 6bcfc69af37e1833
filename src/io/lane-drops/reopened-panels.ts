/**
 * An ended lane agent's panel, lingering or reopened, says what still applies once its lane was dropped or merged
 * (docs/lanes.md, "Undoing a drop"): `dropped` in its header and row, and `tai lane undrop NAME` in its transcript.
 * The drop runs in another process, so those lanes' rows are read once a second (up to REMEMBERED_MAX), and at
 * once when such a panel comes back.
 */
import { laneNextSteps } from '../../core/lanes/lane-lines.js';
import type { Board } from '../../../store/board.js';
import { LaneStore, type StoredLane } from '../lanes/lane-store.js';
import type { StateDb } from '../storage/state-db.js';

/** Ended lane panels are remembered up to this many (the newest). */
const REMEMBERED_MAX = 64;

/** How often the lanes of ended agents are looked at (ms): one row read each. */
export const LANE_GONE_CHECK_MS = 1_000;

type Gone = 'dropped' | 'merged';

/** The ended lane panels of one agent service, and what to say when a lane goes. */
export class ReopenedPanels {
  readonly #board: Board;
  readonly #db: StateDb;
  readonly #now: () => number;
  readonly #ended = new Map<number, StoredLane>();
  /** What each panel was told last, so it is said once. */
  readonly #told = new Map<number, Gone>();
  #unsubscribe: (() => void) | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: { board: Board; db: StateDb; now: () => number }) {
    this.#board = options.board;
    this.#db = options.db;
    this.#now = options.now;
  }

  /** The agent of `lane` in panel `id` ended. */
  ended(id: number, lane: StoredLane): void {
    this.#ended.set(id, lane);
    for (const old of this.#ended.keys()) {
      if (this.#ended.size <= REMEMBERED_MAX) break;
      this.#ended.delete(old);
      this.#told.delete(old);
    }
    this.#arm();
    if (this.#unsubscribe) return;
    // A panel coming back on the board is looked at at once, not at the next second.
    let last = this.#board.getState().panels;
    let shown = new Set(last.map((p) => p.id));
    this.#unsubscribe = this.#board.subscribe((s) => {
      if (s.panels === last) return;
      last = s.panels;
      const now = new Set(s.panels.map((p) => p.id));
      for (const panel of now) if (!shown.has(panel) && this.#ended.has(panel) && this.#told.get(panel) !== 'dropped') this.#say(panel);
      shown = now;
    });
  }

  dispose(): void {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** Looks at the lanes once a second while one of them may still be dropped. */
  #arm(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => this.#check(), LANE_GONE_CHECK_MS);
    this.#timer.unref();
  }

  #check(): void {
    let open = false;
    for (const id of this.#ended.keys()) {
      if (this.#told.get(id) === 'dropped') continue;
      this.#say(id);
      if (this.#told.get(id) !== 'dropped') open = true;
    }
    if (open || !this.#timer) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
  }

  /** When the panel's lane was dropped or merged since its agent ended, its header and a line say so (once). */
  #say(id: number): void {
    const lane = this.#ended.get(id);
    if (!lane) return;
    let row;
    try {
      row = new LaneStore(this.#db).get(lane.repo, lane.name);
    } catch {
      return; // a busy database: the next look tries again
    }
    if (row && row.mergedAt === null) return;
    const gone: Gone = row ? 'merged' : 'dropped';
    if (this.#told.get(id) === gone) return;
    this.#told.set(id, gone);
    const s = this.#board.getState();
    s.tag(id, `⎇ ${lane.name} · ${gone}`, this.#now());
    // Its transcript takes the line while on the board or kept for the agent list; a row alone has no room for it.
    if (s.transcriptKept(id)) s.write(id, `\r\n${laneNextSteps(lane.name, gone)}\r\n`, this.#now());
  }
}
