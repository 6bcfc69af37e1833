/**
 * The ACP sessions kept between turns (docs/spec.md, "Owners and sessions"). Reuse is opt-in: a spawn without a
 * session key never comes here, so a script fanning out tasks never finds an earlier task's conversation. A key
 * joins the caller's with the argv, folder and environment; one turn a session at a time; idle sessions are
 * live processes, so they expire after ACP_SESSION_IDLE_MS and at most ACP_SESSIONS_IDLE_MAX are kept.
 */
import { AcpSession, type AcpSessionSpec } from './acp-session.js';

/** An idle session is closed after this long without a turn (30 min: a working session's pause, not a day's). */
export const ACP_SESSION_IDLE_MS = 30 * 60_000;

/** At most this many idle sessions are kept (the agent cap is 8: one idle per possible agent). */
export const ACP_SESSIONS_IDLE_MAX = 8;

/** The longest delay setTimeout takes. */
const TIMER_MAX = 2 ** 31 - 1;

/** How to build a pool; every field has a default. */
export interface AcpPoolOptions {
  /** The clock idle times are measured on (tests pass their own). */
  readonly now?: () => number;
  readonly idleMs?: number;
  readonly maxIdle?: number;
}

/** What acquire hands out. */
export interface Acquired {
  readonly session: AcpSession;
  /** True when the session had taken turns before. */
  readonly reused: boolean;
}

interface Idle {
  readonly key: string;
  readonly session: AcpSession;
  readonly since: number;
}

/** The ACP sessions of one supervisor, by key; close() ends them all. */
export class AcpSessionPool {
  readonly #now: () => number;
  readonly #idleMs: number;
  readonly #maxIdle: number;
  /** Oldest first. */
  #idle: Idle[] = [];
  readonly #busy = new Map<AcpSession, string>();
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(options: AcpPoolOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#idleMs = options.idleMs ?? ACP_SESSION_IDLE_MS;
    this.#maxIdle = options.maxIdle ?? ACP_SESSIONS_IDLE_MAX;
  }

  /** The newest live idle session for `key` and `spec`, or a new one; either way busy until released or dropped. */
  acquire(key: string, spec: AcpSessionSpec): Acquired {
    this.expire(this.#now());
    const k = poolKey(key, spec);
    for (let i = this.#idle.length - 1; i >= 0; i--) {
      const idle = this.#idle[i];
      if (idle?.key !== k) continue;
      this.#idle.splice(i, 1);
      if (!idle.session.live) {
        void idle.session.close();
        continue;
      }
      this.#busy.set(idle.session, k);
      this.#arm();
      return { session: idle.session, reused: true };
    }
    const session = new AcpSession(spec);
    // A closed pool keeps nothing: release and drop close the session.
    if (!this.#closed) this.#busy.set(session, k);
    return { session, reused: false };
  }

  /** The session's turn ended fit for another: kept idle for its key (closed instead when it cannot be kept). */
  release(session: AcpSession): void {
    const key = this.#busy.get(session);
    this.#busy.delete(session);
    if (key === undefined || this.#closed || !session.live) {
      void session.close();
      return;
    }
    this.#idle.push({ key, session, since: this.#now() });
    // An idle agent that exits is forgotten (and its connection ended) at once.
    void session.gone.then(() => {
      if (this.#forget(session)) void session.close();
    });
    while (this.#idle.length > this.#maxIdle) void this.#idle.shift()?.session.close();
    this.#arm();
  }

  /** Closes the session and forgets it; resolves once its process is gone. */
  drop(session: AcpSession): Promise<void> {
    this.#busy.delete(session);
    this.#forget(session);
    return session.close();
  }

  /** Drops the session if it is idle (not taking another turn); true when it was. */
  dropIdle(session: AcpSession): boolean {
    if (!this.#idle.some((i) => i.session === session)) return false;
    void this.drop(session);
    return true;
  }

  /** Closes the idle sessions unused for the idle time at `now`; returns how many. */
  expire(now: number): number {
    const stale = this.#idle.filter((i) => now - i.since >= this.#idleMs);
    if (stale.length === 0) return 0;
    this.#idle = this.#idle.filter((i) => now - i.since < this.#idleMs);
    for (const idle of stale) void idle.session.close();
    this.#arm();
    return stale.length;
  }

  /** How many sessions are idle and busy, for status and tests. */
  get size(): { readonly idle: number; readonly busy: number } {
    return { idle: this.#idle.length, busy: this.#busy.size };
  }

  /** Closes every session, idle and busy (a busy turn ends failed); resolves once their processes are gone. */
  close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const all = [...this.#idle.map((i) => i.session), ...this.#busy.keys()];
    this.#idle = [];
    this.#busy.clear();
    return Promise.all(all.map((s) => s.close())).then(() => undefined);
  }

  /** Removes the session from the idle ones; true when it was there. */
  #forget(session: AcpSession): boolean {
    const before = this.#idle.length;
    this.#idle = this.#idle.filter((i) => i.session !== session);
    if (this.#idle.length === before) return false;
    this.#arm();
    return true;
  }

  /** One timer, for the oldest idle session's expiry; none while nothing is idle. */
  #arm(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const oldest = this.#idle[0];
    if (!oldest || this.#closed) return;
    const delay = Math.min(TIMER_MAX, Math.max(0, oldest.since + this.#idleMs - this.#now()));
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      if (this.expire(this.#now()) === 0) this.#arm();
    }, delay);
    // Idle agents never keep the supervisor alive: their reapers end them when it exits.
    this.#timer.unref();
  }
}

/** The caller's key, bound to the program, directory and environment the session runs. */
function poolKey(key: string, spec: AcpSessionSpec): string {
  return JSON.stringify([key, spec.argv, spec.cwd ?? '', spec.env ?? {}]);
}
