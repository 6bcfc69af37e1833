/**
 * The wake-up (lead-wake.ts) put into a drawn cockpit (`tai --wake`,
 * docs/lead.md): the agents the lead started and its waits come from the
 * control socket's record (src/io/socket/lead-traffic.ts), the keys and the
 * output from the main pane's two hooks, and the line goes to the main
 * program through the main pane, as typed keys do. Without `--wake` every
 * call here does nothing.
 */
import { WAKE_DELAYS, type WakeDelays } from '../../core/lead/wake-rules.js';
import type { Board } from '../../../store/board.js';
import type { LeadTraffic } from '../socket/lead-traffic.js';
import { startLeadWake } from './lead-wake.js';

/** How often the rules are asked (ms). */
const WAKE_TICK_MS = 250;

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
  const timers = new Set<NodeJS.Timeout>();
  const wake = startLeadWake({
    status: (now) => w.board.getState().status(now),
    isLeads: (id) => traffic.started(id),
    jobOf: (id) => traffic.jobOf(id),
    superseded: (id) => traffic.superseded(id),
    waitPending: (id) => traffic.waitingOn(id, w.now()),
    heard: (id, state, since) => traffic.heard(id, state, since),
    settled: (id) => traffic.settled(id),
    idle: () => traffic.size === 0,
    delays: wakeDelays(w.env),
    held: (why) => w.log(`lead wake-up waits: ${why}`),
    type: (text) => {
      const body = text.replace(/\r$/, '');
      w.type(body);
      if (body === text) return;
      const t = setTimeout(() => {
        timers.delete(t);
        w.type('\r');
      }, ENTER_AFTER_MS);
      timers.add(t);
    },
    // The status line shows the line as sent until the next key; the log keeps it.
    showStatus: (line) => {
      w.log(line);
      w.say?.(line);
    },
    now: w.now,
    everyMs: WAKE_TICK_MS,
  });
  w.log('lead wake-up on (tai --wake)');
  return {
    noteKeys: () => wake.noteKeys(),
    noteOutput: () => wake.noteOutput(),
    stop() {
      wake.stop();
      for (const t of timers) clearTimeout(t);
    },
  };
}

/**
 * The delays, each from the environment when set there to a whole number of
 * ms (TAI_WAKE_QUIET_OUTPUT_MS, TAI_WAKE_QUIET_KEYS_MS, TAI_WAKE_GAP_MS: for
 * tests and for users who want another pace), else docs/lead.md's.
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
