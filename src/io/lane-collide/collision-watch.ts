/**
 * Live collision warnings (docs/lanes.md, "Collisions"): each live lane's changed paths looked at when its watch
 * heard a change, on a trigger of its own (COLLIDE_TIMING, none at rest). When a lane's paths change, its
 * repository's collisions are worked out again and every lane whose collisions changed is told, both sides at once.
 */
import type { CollisionWith } from '../../core/lanes/collisions.js';
import { changed, COLLIDE_TIMING, QUIET_TRIGGER, statDueAt, statEnded, statStarted, type StatTrigger } from '../../core/lanes/stat-trigger.js';
import type { StoredLane } from '../lanes/lane-store.js';
import { collisionsAmong } from './collide.js';
import { touchedFiles } from './touched.js';

/** One live lane as the collision watch knows it. */
interface Watched {
  readonly lane: StoredLane;
  trigger: StatTrigger;
  due: NodeJS.Timeout | undefined;
  /** Its changed paths, once looked at. */
  files: readonly string[] | undefined;
  /** The collisions it was last told, as a key (to tell changes only). */
  told: string;
  list: readonly CollisionWith[];
}

/** What the watch needs. */
export interface CollisionWatchOptions {
  readonly now: () => number;
  /** A lane's collisions changed (both lanes of a new collision are told): the whole list now, and the new ones. */
  readonly shown: (id: number, list: readonly CollisionWith[], fresh: readonly CollisionWith[]) => void;
}

/** The collision looks of one agent service's live lanes. */
export class CollisionWatch {
  readonly #o: CollisionWatchOptions;
  readonly #lanes = new Map<number, Watched>();
  /** Looks taken (one `diff-index` and one `ls-files` each), for tests and the bench. */
  looks = 0;

  constructor(options: CollisionWatchOptions) {
    this.#o = options;
  }

  /** Starts watching the live lane of panel `id`; it is looked at once soon (it may hold changes already). */
  add(id: number, lane: StoredLane): void {
    this.#lanes.set(id, { lane, trigger: QUIET_TRIGGER, due: undefined, files: undefined, told: '', list: [] });
    this.changed(id);
  }

  /** Something in the lane of `id` changed. */
  changed(id: number): void {
    const w = this.#lanes.get(id);
    if (!w) return;
    w.trigger = changed(w.trigger, this.#o.now());
    this.#arm(id, w);
  }

  /** The paths the lane of `id` changed, as last looked at (for tests). */
  filesOf(id: number): readonly string[] | undefined {
    return this.#lanes.get(id)?.files;
  }

  /** The lane of `id` is no longer live: it leaves the others' collisions. */
  remove(id: number): void {
    const w = this.#lanes.get(id);
    if (!w) return;
    if (w.due) clearTimeout(w.due);
    this.#lanes.delete(id);
    void this.#recount(w.lane.repo).catch(() => {});
  }

  dispose(): void {
    for (const w of this.#lanes.values()) if (w.due) clearTimeout(w.due);
    this.#lanes.clear();
  }

  #arm(id: number, w: Watched): void {
    const at = statDueAt(w.trigger, COLLIDE_TIMING);
    if (at === undefined || w.due !== undefined) return;
    w.due = setTimeout(() => {
      w.due = undefined;
      if (this.#lanes.get(id) !== w) return;
      const later = statDueAt(w.trigger, COLLIDE_TIMING);
      if (later !== undefined && later > at) return this.#arm(id, w);
      w.trigger = statStarted(w.trigger, this.#o.now());
      void this.#look(w).finally(() => {
        w.trigger = statEnded(w.trigger);
        if (this.#lanes.get(id) === w) this.#arm(id, w);
      });
    }, Math.min(Math.max(0, at - this.#o.now()), COLLIDE_TIMING.gap));
    w.due.unref();
  }

  async #look(w: Watched): Promise<void> {
    this.looks++;
    const files = await touchedFiles(w.lane).catch(() => w.files ?? []);
    const same = w.files !== undefined && files.length === w.files.length && files.every((f, i) => f === w.files?.[i]);
    w.files = files;
    if (!same) await this.#recount(w.lane.repo).catch(() => {});
  }

  /** Works out the collisions of the repository's live lanes again and tells each lane whose list changed. */
  async #recount(repo: string): Promise<void> {
    const mine = [...this.#lanes.entries()].filter(([, w]) => w.lane.repo === repo && w.files !== undefined);
    const found = await collisionsAmong(
      mine.map(([, w]) => w.lane),
      mine.map(([, w]) => ({ name: w.lane.name, files: w.files ?? [] })),
    );
    for (const [id, w] of mine) {
      if (this.#lanes.get(id) !== w) continue;
      const list = found.get(w.lane.name) ?? [];
      const key = JSON.stringify(list);
      if (key === w.told) continue;
      const before = new Set(w.list.map((c) => c.other));
      const fresh = list.filter((c) => !before.has(c.other));
      w.told = key;
      w.list = list;
      this.#o.shown(id, list, fresh);
    }
  }
}
