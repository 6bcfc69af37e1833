/**
 * A live lane's diff stat in its header (docs/lanes.md, "The panel"): one `git diff-index --shortstat` at a time
 * in a child process, when a watched lane changed (at rest, no git), or on the cockpit's backing-off timer for a
 * lane whose watch failed, which the log says once.
 */
import type { DiffStat } from '../../core/lanes/git-output.js';
import { LANE_STAT_EVERY_MS, nextStatEvery } from '../../core/lanes/stat-schedule.js';
import { changed, LANE_STAT_GAP_MS, QUIET_TRIGGER, statDueAt, statEnded, statStarted, type StatTrigger } from '../../core/lanes/stat-trigger.js';
import type { Logger } from '../storage/log.js';
import { trackedStat } from './lane-status.js';
import type { StoredLane } from './lane-store.js';
import { LaneTreeWatch, type WatchFolder } from './lane-tree-watch.js';

/** What the lanes' stats count (for tests and the lanes-idle bench). */
export interface LaneStatCounters {
  /** Stats started (each one git run), and answered. */
  stats: number;
  statsDone: number;
  /** `git check-ignore` runs of watches closed since. */
  checks: number;
  /** Watch events told. */
  changes: number;
}

/** What one lane's stat needs of its panel. */
export interface LaneStatOptions {
  readonly lane: StoredLane;
  readonly now: () => number;
  readonly log: Logger;
  readonly counters: LaneStatCounters;
  /** Before a stat on change: false when the panel is no longer live (no stat then). */
  readonly before: () => boolean;
  /** A stat that differs from the one before. */
  readonly shown: (stat: DiffStat) => void;
  /** The watch failed: the lane needs the timer (`look`) from now on. */
  readonly timed: () => void;
  /** Something in the lane changed (each watch event; each timed stat once the watch failed): the collision look's cue. */
  readonly changed?: () => void;
  readonly watchMax?: number;
  readonly watchFolder?: WatchFolder;
}

/** The diff stat of one followed lane: on change while watched, on the timer once the watch failed. */
export class LaneStat {
  readonly #o: LaneStatOptions;
  #tree: LaneTreeWatch | undefined;
  // The first stat once watched: a lane an agent starts in again may hold changes already.
  #trigger: StatTrigger;
  #due: NodeJS.Timeout | undefined;
  #busy = false;
  #closed = false;
  #last: DiffStat | undefined;
  /** The timer's schedule (stat-schedule.ts): the wait before the next stat, when it is due, and whether the agent told something since. */
  #every = LANE_STAT_EVERY_MS;
  #dueAt: number;
  #told = false;

  constructor(options: LaneStatOptions) {
    this.#o = options;
    const now = options.now();
    this.#trigger = changed(QUIET_TRIGGER, now);
    this.#dueAt = now + LANE_STAT_EVERY_MS;
    this.#tree = new LaneTreeWatch({
      worktree: options.lane.worktree,
      branch: options.lane.branch,
      ...(options.watchMax === undefined ? {} : { max: options.watchMax }),
      ...(options.watchFolder === undefined ? {} : { watch: options.watchFolder }),
      onChange: () => {
        options.counters.changes++;
        options.changed?.();
        this.#trigger = changed(this.#trigger, options.now());
        this.#arm();
      },
      onFail: (reason) => this.#fallBack(reason),
    });
    this.#arm();
  }

  /** Watched (not on the timer). */
  get watched(): boolean {
    return this.#tree !== undefined;
  }

  /** Its watches open now. */
  get watches(): number {
    return this.#tree?.size ?? 0;
  }

  /** Its watch's `git check-ignore` runs so far. */
  get checks(): number {
    return this.#tree?.checks ?? 0;
  }

  /** Its agent told an event: a timed lane's next look takes a stat. */
  told(): void {
    this.#told = true;
  }

  /** The timer's look at a lane whose watch failed: a stat when one is due and none runs. */
  look(now: number): void {
    if (this.#tree !== undefined || this.#closed || this.#busy || (!this.#told && now < this.#dueAt)) return;
    const told = this.#told;
    this.#told = false;
    this.#o.changed?.();
    this.#take(!told, () => {});
  }

  /** Closes its watch and its pending stat (the agent ended, the cockpit stops). */
  close(): void {
    this.#closed = true;
    this.#closeTree();
  }

  /** Sets the timeout of the next stat, if one is due (changes since it was set may push it later). */
  #arm(): void {
    const at = statDueAt(this.#trigger);
    if (at === undefined || this.#tree === undefined || this.#due !== undefined) return;
    // Bounded, so a wall clock set back does not hold the stat for as long.
    const wait = Math.min(Math.max(0, at - this.#o.now()), LANE_STAT_GAP_MS);
    this.#due = setTimeout(() => {
      this.#due = undefined;
      if (this.#tree === undefined) return;
      const later = statDueAt(this.#trigger);
      if (later !== undefined && later > at) return this.#arm();
      if (!this.#o.before() || this.#tree === undefined) return;
      this.#trigger = statStarted(this.#trigger, this.#o.now());
      this.#take(false, () => {
        this.#trigger = statEnded(this.#trigger);
        this.#arm();
      });
    }, wait);
    this.#due.unref();
  }

  /** One stat; `done` runs after it, whatever its end. */
  #take(quietBefore: boolean, done: () => void): void {
    const counters = this.#o.counters;
    this.#busy = true;
    counters.stats++;
    const startedAt = this.#o.now();
    void trackedStat(this.#o.lane)
      .then((stat) => {
        const same = this.#last !== undefined && sameStat(stat, this.#last);
        this.#every = nextStatEvery(this.#every, quietBefore && same);
        this.#dueAt = startedAt + this.#every;
        this.#last = stat;
        if (!same && !this.#closed) this.#o.shown(stat);
      })
      .catch(() => {})
      .finally(() => {
        this.#busy = false;
        counters.statsDone++;
        done();
      });
  }

  #fallBack(reason: string): void {
    if (this.#closed) return;
    this.#closeTree();
    this.#o.log(`lane ${this.#o.lane.name}: ${reason}; its diff stat is taken on a timer instead (every 5 s, backing off to 80 s while quiet)`);
    this.#dueAt = this.#o.now() + LANE_STAT_EVERY_MS;
    this.#o.timed();
  }

  #closeTree(): void {
    this.#o.counters.checks += this.#tree?.checks ?? 0;
    this.#tree?.close();
    this.#tree = undefined;
    if (this.#due) clearTimeout(this.#due);
    this.#due = undefined;
  }
}

function sameStat(a: DiffStat, b: DiffStat): boolean {
  return a.files === b.files && a.added === b.added && a.removed === b.removed;
}
