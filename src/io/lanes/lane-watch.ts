/**
 * A lane's panel (docs/lanes.md, "The panel"): makes or finds the lane a spawn names, then follows its panel: the
 * `⎇ NAME` tag, the diff stat (on a change, never on the board's hot path; on a backing-off timer for a lane
 * whose watch failed), collisions with other live lanes, the footer's next steps; prefix + `D` opens its diff in
 * a read-only view pane.
 */
import { laneNextSteps, laneTag } from '../../core/lanes/lane-lines.js';
import { LANE_STAT_EVERY_MS } from '../../core/lanes/stat-schedule.js';
import { isLive } from '../../core/panel/panel-state.js';
import { RequestError, messageOf } from '../../core/errors.js';
import type { CommandOf } from '../../core/protocol/commands.js';
import type { Board } from '../../../store/board.js';
import { findLane, LaneError, makeLane, refuseMissing, refuseWhileLive } from './lanes.js';
import { fullStat, laneDiff } from './lane-status.js';
import { LaneStore, type StoredLane } from './lane-store.js';
import { dropLane } from './lane-end.js';
import { identityOf } from '../process-identity.js';
import type { StateDb } from '../storage/state-db.js';
import type { Logger } from '../storage/log.js';
import type { WatchFolder } from './lane-tree-watch.js';
import { LaneStat, type LaneStatCounters } from './lane-stat.js';
import { CollisionWatch } from '../lane-collide/collision-watch.js';
import { ReopenedPanels } from '../lane-drops/reopened-panels.js';
import { collisionTag, collisionText, type CollisionWith } from '../../core/lanes/collisions.js';
import type { DiffStat } from '../../core/lanes/git-output.js';

/** A live lane's diff stat is refreshed at most this often (kept for importers). */
export { LANE_STAT_EVERY_MS };

/** A spawn made ready to run in its lane. */
export interface PreparedLane {
  readonly request: CommandOf<'spawn'>;
  readonly lane: StoredLane;
  /** Said to the asker once (a dirty main checkout). */
  readonly notes: readonly string[];
  /** Removes a lane made for a spawn that then did not start. */
  undo(): Promise<void>;
}

interface Followed {
  readonly lane: StoredLane;
  /** The agent's pid now (its reaper reports it soon after the start; an outage restart changes it). */
  readonly pidOf: () => number | undefined;
  /** The pid last stored in the lane's row. */
  stored: number | undefined;
  ended: boolean;
  /** Its diff stat: on change while watched, else on the timer. */
  stat: LaneStat;
  /** The diff stat last shown, and the lane's collisions with other live lanes (docs/lanes.md, "Collisions"). */
  shownStat: DiffStat | undefined;
  collisions: readonly CollisionWith[];
}

/** After a start, the agent's pid is looked for after 10, 20, 40 ... ms, up to this; later, at each stat refresh. */
const PID_CHASE_MAX_MS = 2_560;

/** The lanes of one agent service: made on spawn, followed in their panels. */
export class LaneWatch {
  readonly #db: StateDb;
  readonly #board: Board;
  readonly #run: string;
  readonly #now: () => number;
  readonly #followed = new Map<number, Followed>();
  /** Open diff views: pane id -> the lane shown. */
  readonly #views = new Map<number, string>();
  #timer: NodeJS.Timeout | undefined;
  #unlisten: (() => void) | undefined;
  readonly #log: Logger;
  readonly #watchMax: number | undefined;
  readonly #watchFolder: WatchFolder | undefined;
  /** What the lanes' stats and watches did (for tests and the lanes-idle bench). */
  readonly counters: LaneStatCounters = { stats: 0, statsDone: 0, checks: 0, changes: 0 };
  /** The live lanes' collision looks (src/io/lane-collide/collision-watch.ts). */
  readonly collide: CollisionWatch;
  /** Ended lane panels, to say what still applies when one is reopened after its lane was dropped. */
  readonly #reopens: ReopenedPanels;

  constructor(options: { db: StateDb; board: Board; run: string; now?: () => number; log?: Logger; watchMax?: number; watchFolder?: WatchFolder }) {
    this.#db = options.db;
    this.#board = options.board;
    this.#run = options.run;
    this.#now = options.now ?? Date.now;
    this.#log = options.log ?? (() => {});
    this.#watchMax = options.watchMax;
    this.#watchFolder = options.watchFolder;
    this.collide = new CollisionWatch({ now: this.#now, shown: (id, list, fresh) => this.#collided(id, list, fresh) });
    this.#reopens = new ReopenedPanels({ board: this.#board, db: this.#db, now: this.#now });
  }

  /** A lane's collisions changed: its header says them, and each new one is a note in its panel. */
  #collided(id: number, list: readonly CollisionWith[], fresh: readonly CollisionWith[]): void {
    const followed = this.#followed.get(id);
    if (!followed) return;
    followed.collisions = list;
    this.#retag(id, followed);
    const now = this.#now();
    for (const c of fresh) this.#board.getState().emit(id, { type: 'note', text: collisionText(c) }, now);
  }

  /** The header tag: `⎇ NAME · 2 files +3 −1 · ⚠ other: a.ts (same lines)`. */
  #retag(id: number, followed: Followed): void {
    const warn = collisionTag(followed.collisions);
    this.#board.getState().tag(id, `${laneTag(followed.lane.name, followed.shownStat)}${warn === '' ? '' : ` · ${warn}`}`, this.#now());
  }

  /** The watches open now, over every followed lane (for tests: none once the agents ended). */
  get watches(): number {
    let n = 0;
    for (const f of this.#followed.values()) n += f.stat.watches;
    return n;
  }

  /** `git check-ignore` runs of the watches, over every lane followed so far. */
  get checks(): number {
    let n = this.counters.checks;
    for (const f of this.#followed.values()) n += f.stat.checks;
    return n;
  }

  /** Makes the lane `request.lane` asks for (or finds `request.in_lane`) and points the request's cwd at its worktree. */
  async prepare(request: CommandOf<'spawn'>, label: string, task: string, now: number): Promise<PreparedLane> {
    const cwd = request.cwd ?? process.cwd();
    if (request.in_lane !== undefined) {
      const lane = await findLane(this.#db, request.in_lane, cwd);
      refuseWhileLive(this.#db, lane, 'start an agent in');
      refuseMissing(lane);
      return { request: { ...request, cwd: lane.worktree }, lane, notes: [], undo: async () => {} };
    }
    const agent = {
      kind: request.kind,
      argv: request.argv,
      label,
      ...(request.prompt === undefined ? {} : { prompt: request.prompt }),
      ...(request.timeout === undefined ? {} : { timeout: request.timeout }),
      ...(request.allow ? { allow: true } : {}),
    };
    const made = await makeLane(this.#db, { cwd, ...(request.lane ? { name: request.lane } : {}), task, agent, now });
    const lane = made.lane;
    return {
      request: { ...request, cwd: lane.worktree },
      lane,
      notes: made.notes,
      undo: async () => {
        await dropLane(this.#db, lane, false).catch(() => {});
      },
    };
  }

  /**
   * Follows the panel `id` an agent of `lane` runs in: its row (with the agent's pid once known, so `tai lane
   * drop` elsewhere knows it still runs), its header tag, its diff stat.
   */
  follow(id: number, lane: StoredLane, pidOf: () => number | undefined = () => undefined): void {
    new LaneStore(this.#db).setAgent(lane.repo, lane.name, this.#run, id);
    this.#board.getState().tag(id, laneTag(lane.name), this.#now());
    // Its callbacks run later (a timeout, a watch event), once `followed` is set.
    const stat = new LaneStat({
      lane,
      now: this.#now,
      log: this.#log,
      counters: this.counters,
      ...(this.#watchMax === undefined ? {} : { watchMax: this.#watchMax }),
      ...(this.#watchFolder === undefined ? {} : { watchFolder: this.#watchFolder }),
      before: () => {
        if (!this.#stillLive(id)) return false;
        this.#storePid(id, followed);
        return true;
      },
      shown: (stat) => {
        followed.shownStat = stat;
        this.#retag(id, followed);
      },
      timed: () => this.#timed(),
      changed: () => this.collide.changed(id),
    });
    const followed: Followed = { lane, pidOf, stored: undefined, ended: false, stat, shownStat: undefined, collisions: [] };
    this.#followed.set(id, followed);
    this.collide.add(id, lane);
    this.#chasePid(id, followed, 10);
  }

  /** A lane's watch failed: the timer takes its stats, and its agent's events bring them back to every 5 s (one map lookup per event, only while such lanes are followed). */
  #timed(): void {
    this.#unlisten ??= this.#board.getState().listen((panel) => this.#followed.get(panel)?.stat.told());
    this.#timer ??= setInterval(() => this.refresh(), LANE_STAT_EVERY_MS);
    this.#timer.unref();
  }

  /** False (and the lane's end taken) when its panel ended without the service saying so (closed, or finished by the board). */
  #stillLive(id: number): boolean {
    const view = this.#board.getState().panels.find((p) => p.id === id);
    if (view && isLive(view.state)) return true;
    this.ending(id);
    return false;
  }

  /** Stores the agent's pid and start time once known; false while it is not. */
  #storePid(id: number, followed: Followed): boolean {
    const pid = followed.pidOf();
    if (pid === undefined) return false;
    if (pid === followed.stored) return true;
    const identity = identityOf(pid);
    if (identity === undefined) return false;
    try {
      new LaneStore(this.#db).setAgentProcess(followed.lane.repo, followed.lane.name, this.#run, id, identity.pid, identity.start);
      followed.stored = pid;
    } catch {
      // A busy database: the next refresh tries again; meanwhile the supervisor's run key stands for the agent.
    }
    return true;
  }

  #chasePid(id: number, followed: Followed, wait: number): void {
    if (this.#followed.get(id) !== followed || this.#storePid(id, followed) || wait > PID_CHASE_MAX_MS) return;
    setTimeout(() => this.#chasePid(id, followed, wait * 2), wait).unref();
  }

  /** The panel's agent is ending: its next steps go above the footer, its last stat counts new files. */
  ending(id: number): void {
    const followed = this.#followed.get(id);
    if (!followed || followed.ended) return;
    followed.ended = true;
    followed.stat.close();
    this.collide.remove(id);
    this.#board.getState().emit(id, { type: 'note', text: laneNextSteps(followed.lane.name) }, this.#now());
    void fullStat(followed.lane).then(
      (stat) => this.#board.getState().tag(id, laneTag(followed.lane.name, stat), this.#now()),
      () => {},
    );
    this.#followed.delete(id);
    this.#ended.set(id, followed.lane.name);
    // Only lingering panels need it: keep the newest few.
    for (const old of this.#ended.keys()) if (this.#ended.size > 64) this.#ended.delete(old);
    this.#reopens.ended(id, followed.lane);
    this.#settle();
  }

  /** The lane of a panel (followed now, or whose view it is), if any. */
  laneOf(id: number): string | undefined {
    return this.#followed.get(id)?.lane.name ?? this.#views.get(id) ?? this.#ended.get(id);
  }

  /** Lanes of panels that ended, so `d` still opens their diff while they linger. */
  readonly #ended = new Map<number, string>();

  /** Opens the lane's coloured diff (committed and uncommitted, against its base) in a view pane, zoomed and focused. */
  async openDiff(id: number, cwd: string): Promise<number> {
    const name = this.laneOf(id);
    if (name === undefined) throw new RequestError(`pane ${id} is not a lane's panel: prefix + D opens the diff of a focused lane`);
    const lane = await findLane(this.#db, name, this.#followed.get(id)?.lane.top ?? cwd);
    refuseMissing(lane);
    const diff = await laneDiff(lane, true);
    const s = this.#board.getState();
    const now = this.#now();
    const view = s.open({ kind: 'feed', label: `diff ⎇ ${lane.name}`, header: ` ⎇ ${lane.name} · diff against ${lane.base.slice(0, 7)} · q closes`, state: 'idle' }, now);
    s.write(view, (diff === '' ? 'no changes\n' : diff).replace(/\r?\n/g, '\r\n'), now);
    this.#views.set(view, lane.name);
    s.focusSet(view);
    if (s.zoom !== view) s.zoomToggle();
    // The view's lease is kept alive by the timer (feed panes lapse without it).
    this.#timer ??= setInterval(() => this.refresh(), LANE_STAT_EVERY_MS);
    this.#timer.unref();
    return view;
  }

  /** Closes a diff view (`q`); false when `id` is not one. */
  closeView(id: number): boolean {
    if (!this.#views.delete(id)) return false;
    this.#board.getState().close(id, this.#now());
    this.#settle();
    return true;
  }

  /** Stops the timer and closes every watch (the service is disposed). */
  dispose(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    for (const followed of this.#followed.values()) followed.stat.close();
    this.#followed.clear();
    this.collide.dispose();
    this.#reopens.dispose();
    this.#unlisten?.();
    this.#unlisten = undefined;
  }

  /**
   * The timer's work while a lane's watch failed or a diff view is open (public for tests): a stat of each
   * unwatched live lane due and not being read (watched lanes are stat on change); views keep their lease.
   */
  refresh(): void {
    const s = this.#board.getState();
    const now = this.#now();
    for (const [id, followed] of this.#followed) {
      if (!this.#stillLive(id)) continue;
      this.#storePid(id, followed);
      followed.stat.look(now);
    }
    for (const id of this.#views.keys()) {
      if (s.panels.some((p) => p.id === id)) s.feed(id, {}, now);
      else this.#views.delete(id);
    }
    this.#settle();
  }

  #settle(): void {
    const timed = [...this.#followed.values()].some((f) => !f.stat.watched);
    if (!timed) {
      this.#unlisten?.();
      this.#unlisten = undefined;
    }
    if (!timed && this.#views.size === 0 && this.#timer) {
      clearInterval(this.#timer);
      this.#timer = undefined;
    }
  }
}

/** Why a lane spawn is refused where no state database is open. */
export const NO_LANES = 'lanes need the state database: this agent service was built without one';

/** LaneError and RequestError pass as they are; anything else becomes a LaneError naming the lane step. */
export function laneFailure(err: unknown): Error {
  return err instanceof RequestError ? err : new LaneError(`cannot make the lane: ${messageOf(err)}`);
}
