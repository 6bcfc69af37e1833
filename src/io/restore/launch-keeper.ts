/**
 * An agent service's launches kept current (docs/restore.md, "What is stored"): written at start, the session id
 * rewritten as it arrives, the live flag cleared at the end. An agent stopped by its cockpit's end stays live:
 * whether it is restored is the cockpit row's business.
 */
import { encodeLaunch, type Launch } from '../../core/restore/launch.js';
import { endsWithCockpit } from '../../core/restore/restore-plan.js';
import type { Board } from '../../../store/board.js';
import type { RestoreStore } from './restore-store.js';

/** What a restored job carries into its new launch row. */
export interface RestoredInfo {
  /** The wall clock it was first given (its job runs with what was left). */
  readonly limitMs: number;
  readonly spentMs: number;
  readonly sessionId?: string;
  /** Its first prompt (the restored agent is sent the one message that it was interrupted; a restart sends this again). */
  readonly prompt?: string;
  /** `RUN/ID` of the launch it was restored from. */
  readonly from: string;
}

/** Writes one service's launches; a write the database refuses is dropped (a restore is best effort, supervision never waits on it). */
export class LaunchKeeper {
  readonly #store: RestoreStore;
  readonly #run: string;
  readonly #now: () => number;
  readonly #live = new Map<number, Launch>();
  readonly #restored = new WeakMap<object, RestoredInfo>();
  readonly #off: () => void;

  constructor(store: RestoreStore, run: string, board: Board, now: () => number) {
    this.#store = store;
    this.#run = run;
    this.#now = now;
    this.#off = board.getState().listen((id, event) => {
      if (event.type !== 'session') return;
      const launch = this.#live.get(id);
      if (launch === undefined || launch.sessionId === event.id) return;
      const next: Launch = { ...launch, sessionId: event.id };
      this.#live.set(id, next);
      this.#write(() => this.#store.setLaunchJson(this.#run, id, encodeLaunch(next), this.#now()));
    });
  }

  /** Marks `job` as restored: its launches carry the first wall clock, the time spent and the session id. */
  markRestored(job: object, info: RestoredInfo): void {
    this.#restored.set(job, info);
  }

  /** What `job` was restored with, if it was. */
  restoredOf(job: object): RestoredInfo | undefined {
    return this.#restored.get(job);
  }

  /** An attempt started in panel `id`. */
  started(id: number, launch: Launch, startedAt: number, restoredFrom?: string): void {
    this.#live.set(id, launch);
    this.#write(() => this.#store.saveLaunch({ run: this.#run, id, launch: encodeLaunch(launch), live: true, startedAt, restoredFrom: restoredFrom ?? null }, this.#now()));
  }

  /** A launch kept under panel `id` without an agent running (one that ended with its cockpit): what `tai restart ID` starts. */
  kept(id: number, launch: Launch, at: number, restoredFrom: string): void {
    this.#write(() => this.#store.saveLaunch({ run: this.#run, id, launch: encodeLaunch(launch), live: false, startedAt: at, restoredFrom }, this.#now()));
  }

  /** The attempt in panel `id` ended, for `reason`: not live any more, unless its cockpit's end stopped it. */
  ended(id: number, reason: string): void {
    if (!this.#live.delete(id)) return;
    if (endsWithCockpit(reason)) return;
    this.#write(() => this.#store.setLive(this.#run, id, false, this.#now()));
  }

  /** Stops listening. */
  dispose(): void {
    this.#off();
  }

  #write(write: () => void): void {
    try {
      write();
    } catch {
      // Locked or full: this launch may not restore; the agent runs on.
    }
  }
}
