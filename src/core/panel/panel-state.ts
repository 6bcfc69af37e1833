/**
 * The folder `src/core/panel/`: one panel's and the column's rules (state, pending output, formatter, header, colours,
 * layout, column fit, what components need of screens). This file: the panel state machine and the watchdog of
 * docs/spec.md, "Panel state machine" and "Supervision", pure functions of (panel, now). A stop is soft, hard after
 * ORCH_CANCEL_GRACE, and one grace later the board finishes the panel itself, so a stuck owner never keeps a slot.
 */
import {
  ORCH_CANCEL_GRACE,
  ORCH_IDLE_KILL,
  ORCH_IDLE_WARN,
} from '../policy.js';
import { assertNever } from '../never.js';

/**
 * Every state a panel can be in. `waiting` is an agent held for a lost
 * network; `asking` an agent waiting for the user to answer its question
 * (its header says `waiting for you`; src/core/agents/questions.ts).
 */
export const PANEL_STATES = [
  'queued',
  'running',
  'idle',
  'waiting',
  'asking',
  'done',
  'failed',
  'timeout',
  'cancelled',
] as const;
export type PanelState = (typeof PANEL_STATES)[number];

/** The states an agent ends in. */
export type FinalState = Extract<PanelState, 'done' | 'failed' | 'timeout' | 'cancelled'>;

/** Why supervision stopped an agent, which also decides its final state. */
export type StopCause = 'wall_clock' | 'idle' | 'user' | 'owner' | 'shutdown';

/** What the watchdog needs to know about one panel. */
export interface Supervised {
  readonly state: PanelState;
  readonly startedAt: number;
  readonly lastEventAt: number;
  /** Absolute time the wall clock runs out, or undefined for no limit. */
  readonly deadline?: number;
  /** The wall clock as granted, for the message (the deadline moves while held). */
  readonly timeoutMs?: number;
  /** Silence that cancels this agent; undefined for ORCH_IDLE_KILL. */
  readonly idleKillMs?: number;
  /** Set once a stop was requested. */
  readonly stop?: {
    readonly cause: StopCause;
    readonly reason: string;
    readonly at: number;
    readonly hardAt?: number;
  };
  /** Set once the panel finished: when it leaves the screen. */
  readonly closeAt?: number;
  /** While held: `stopWaits` when the agent cannot be reached (a remote agent's lost link), so a stop waits for the hold's end. */
  readonly held?: { readonly stopWaits?: boolean };
}

/** One thing the watchdog wants done; the board applies it. */
export type Decision =
  | { readonly type: 'idle' }
  | { readonly type: 'soft_stop'; readonly cause: StopCause; readonly reason: string }
  | { readonly type: 'hard_stop' }
  | { readonly type: 'force_finish' }
  | { readonly type: 'remove' };

/** True while the agent has not finished. */
export function isLive(state: PanelState): boolean {
  switch (state) {
    case 'queued':
    case 'running':
    case 'idle':
    case 'waiting':
    case 'asking':
      return true;
    case 'done':
    case 'failed':
    case 'timeout':
    case 'cancelled':
      return false;
    default:
      return assertNever(state);
  }
}

/** The final state a stop of this cause ends in (docs/spec.md, "Owners and sessions"). */
export function stopState(cause: StopCause): FinalState {
  switch (cause) {
    case 'wall_clock':
      return 'timeout';
    case 'idle':
    case 'user':
    case 'owner':
    case 'shutdown':
      return 'cancelled';
    default:
      return assertNever(cause);
  }
}

/**
 * The state after an event arrives: an event is a heartbeat, so idle returns
 * to running; a queued agent starts running; final states ignore events.
 */
export function afterEvent(state: PanelState): PanelState {
  switch (state) {
    case 'queued':
    case 'running':
    case 'idle':
      return 'running';
    case 'waiting':
      return 'waiting';
    case 'asking':
      return 'asking';
    case 'done':
    case 'failed':
    case 'timeout':
    case 'cancelled':
      return state;
    default:
      return assertNever(state);
  }
}

/**
 * The final state when the owner reports after supervision asked for a stop: the stop's state (docs/spec.md, "Owners
 * and sessions"), since an agent that answers SIGINT by exiting 0 (Claude Code `-p`, `trap 'exit 0' INT`) was stopped.
 */
export function finalState(reported: FinalState, stop: Supervised['stop']): FinalState {
  return stop ? stopState(stop.cause) : reported;
}

/**
 * The watchdog (docs/spec.md, "Supervision"): what must happen to this panel at
 * `now`. Pure; calling it twice at the same time with the same panel gives the
 * same answer, and the board records each decision so that none fires twice.
 */
export function watchdog(panel: Supervised, now: number): Decision[] {
  if (!isLive(panel.state)) {
    return panel.closeAt !== undefined && now >= panel.closeAt ? [{ type: 'remove' }] : [];
  }
  const stop = panel.stop;
  if (stop) {
    // An agent nobody can reach: its stop is delivered when the hold ends (the grace then counts); quitting does not wait.
    if (panel.state === 'waiting' && panel.held?.stopWaits === true && stop.cause !== 'shutdown') return [];
    if (stop.hardAt === undefined) {
      return now - stop.at >= ORCH_CANCEL_GRACE ? [{ type: 'hard_stop' }] : [];
    }
    return now - stop.hardAt >= ORCH_CANCEL_GRACE ? [{ type: 'force_finish' }] : [];
  }
  // An agent held for a lost network is silent on purpose and its wall clock
  // is paused (the board extends the deadline on resume): the outage decides.
  if (panel.state === 'waiting') return [];
  if (panel.deadline !== undefined && now >= panel.deadline) {
    const secs = Math.round((panel.timeoutMs ?? panel.deadline - panel.startedAt) / 1000);
    return [{ type: 'soft_stop', cause: 'wall_clock', reason: `time limit reached (${secs}s)` }];
  }
  // An agent asking the user is silent on purpose: the heartbeat is paused
  // until the answer (which restarts it); the wall clock above keeps running.
  if (panel.state === 'asking') return [];
  const silent = now - panel.lastEventAt;
  if (silent >= (panel.idleKillMs ?? ORCH_IDLE_KILL)) {
    return [{ type: 'soft_stop', cause: 'idle', reason: `no event for ${Math.floor(silent / 1000)}s` }];
  }
  if (silent >= ORCH_IDLE_WARN && panel.state === 'running') return [{ type: 'idle' }];
  return [];
}

/**
 * When the watchdog next has something to do for this panel: `now` while it is live (its decisions and elapsed seconds
 * need every tick), its removal once finished, undefined for never. The board's clock sleeps until the earliest, on the
 * same grid, so a decision lands on the tick it would ticking every second (docs/performance.md, "Optimisations that stay").
 */
export function watchDueAt(panel: Supervised, now: number): number | undefined {
  return isLive(panel.state) ? now : panel.closeAt;
}

/**
 * When the watchdog next decides something for this panel when nobody sees its elapsed seconds (no client attached):
 * its removal, idle mark, idle cancel, wall clock or stop grace; `now` while it waits on a hold or asks, whose ends
 * come from outside and are not told to the clock.
 */
export function decisionDueAt(panel: Supervised, now: number): number | undefined {
  if (!isLive(panel.state)) return panel.closeAt;
  if (panel.state === 'waiting' || panel.state === 'asking') return now;
  const stop = panel.stop;
  if (stop) return (stop.hardAt ?? stop.at) + ORCH_CANCEL_GRACE;
  const silent = panel.lastEventAt + (panel.idleKillMs ?? ORCH_IDLE_KILL);
  const due = panel.state === 'running' ? Math.min(silent, panel.lastEventAt + ORCH_IDLE_WARN) : silent;
  return panel.deadline === undefined ? due : Math.min(due, panel.deadline);
}
