/**
 * The wake-up (lead-wake.ts) put into a drawn cockpit (`tai --wake`, docs/lead.md, "Waking an idle lead"): the
 * lead's agents and waits from src/io/socket/lead-traffic.ts, keys and output from the main pane's hooks, the
 * line typed through the main pane. Rules are asked on changes, a timer only for their deadline: at rest, none.
 * Without `--wake` every call does nothing.
 */
import { WAKE_DELAYS, type WakeDelays } from '../../core/lead/wake-rules.js';
import { messageOf } from '../../core/errors.js';
import type { Board } from '../../../store/board.js';
import type { LeadTraffic } from '../socket/lead-traffic.js';
import { startLeadWake } from './lead-wake.js';

/** The Enter comes apart from the line: a program that reads text and Enter in one chunk may take it for a paste and keep the Enter in it. */
const ENTER_AFTER_MS = 150;

/** What the wiring needs of the cockpit. */
export interface WakeWiring {
  readonly board: Board;
  readonly env: NodeJS.ProcessEnv;
  readonly now: () => number;
  readonly log: (line: string) => void;
  /** Types into the main program (the main pane's keys). */
  readonly type: (text: string) => void;
  /** Shows a line on the status line until the next key. */
  readonly say?: (line: string) => void;
  /** Arms a one-shot timer and returns its cancel; default setTimeout, unref'd. */
  readonly schedule?: (fire: () => void, ms: number) => () => void;
}

/** A one-shot timer that keeps no process alive. */
function timeout(fire: () => void, ms: number): () => void {
  const t = setTimeout(fire, ms);
  t.unref();
  return () => clearTimeout(t);
}

/** The cockpit's side of the wake-up. */
export interface WiredWake {
  /** Keys went to the main program. */
  noteKeys(): void;
  /** The main program wrote output. */
  noteOutput(): void;
  stop(): void;
}

const OFF: WiredWake = { noteKeys() {}, noteOutput() {}, stop() {} };

/** Starts the wake-up when `traffic` is given (the cockpit runs with --wake); else one that does nothing. */
export function wireLeadWake(traffic: LeadTraffic | undefined, w: WakeWiring): WiredWake {
  if (traffic === undefined) return OFF;
  const schedule = w.schedule ?? timeout;
  const timers = new Set<() => void>();
  const wake = startLeadWake({
    status: (now) => w.board.getState().status(now),
    isLeads: (id) => traffic.started(id),
    questionOf: (id) => w.board.getState().questionOf(id),
    jobOf: (id) => traffic.jobOf(id),
    superseded: (id) => traffic.superseded(id),
    waitPending: (id) => traffic.waitingOn(id, w.now()),
    waitEndsAt: (id) => traffic.waitEndsAt(id),
    heard: (id, state, since) => traffic.heard(id, state, since),
    settled: (id) => traffic.settled(id),
    idle: () => traffic.size === 0,
    delays: wakeDelays(w.env),
    held: (why) => w.log(`lead wake-up waits: ${why}`),
    type: (text) => {
      const body = text.replace(/\r$/, '');
      w.type(body);
      if (body === text) return;
      const cancel = schedule(() => {
        timers.delete(cancel);
        w.type('\r');
      }, ENTER_AFTER_MS);
      timers.add(cancel);
    },
    // The status line shows the line as sent until the next key; the log keeps it.
    showStatus: (line) => {
      w.log(line);
      w.say?.(line);
    },
    now: w.now,
    schedule,
  });
  const poke = (): void => {
    try {
      wake.poke();
    } catch (err) {
      w.log(`lead wake-up failed: ${messageOf(err)}`);
    }
  };
  const offTraffic = traffic.onChange(poke);
  // A change of these counts is an agent starting, ending or asking; the board publishes far more often (every flush).
  let counts = '';
  const offBoard = w.board.subscribe((s) => {
    if (traffic.size === 0 && !wake.pending) return;
    const now = `${s.live}:${s.asking}`;
    if (now === counts) return;
    counts = now;
    poke();
  });
  // A question opening from an agent's queue (its first answered) changes no count: the board says so itself.
  const offAsked = w.board.getState().onAsked(() => {
    if (traffic.size > 0) poke();
  });
  w.log('lead wake-up on (tai --wake)');
  return {
    noteKeys: () => wake.noteKeys(),
    noteOutput: () => wake.noteOutput(),
    stop() {
      offTraffic();
      offBoard();
      offAsked();
      wake.stop();
      for (const cancel of timers) cancel();
    },
  };
}

/**
 * The delays: TAI_WAKE_QUIET_OUTPUT_MS, TAI_WAKE_QUIET_KEYS_MS and TAI_WAKE_GAP_MS when set to whole ms (for tests
 * and users who want another pace), else docs/lead.md's.
 */
export function wakeDelays(env: NodeJS.ProcessEnv): WakeDelays {
  const ms = (name: string, fallback: number): number => {
    const v = env[name];
    return v !== undefined && /^\d+$/.test(v) ? Number(v) : fallback;
  };
  return {
    quietOutputMs: ms('TAI_WAKE_QUIET_OUTPUT_MS', WAKE_DELAYS.quietOutputMs),
    quietKeysMs: ms('TAI_WAKE_QUIET_KEYS_MS', WAKE_DELAYS.quietKeysMs),
    minGapMs: ms('TAI_WAKE_GAP_MS', WAKE_DELAYS.minGapMs),
  };
}
