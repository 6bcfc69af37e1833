/**
 * The live status line of an attached `tai spawn` (docs/agents.md, "Starting one"): only when stderr is a terminal,
 * one line redrawn in place at most every LIVE_STATUS_MS from the caller's sampler, erased before anything else is
 * printed.
 */
import { lastLine, liveStatusLine, type LiveSample } from '../../core/agents/live-status.js';
import { isLive } from '../../core/panel/panel-state.js';
import { call } from '../../io/socket/control-client.js';
import type { CliOutput } from '../output.js';

/** The shortest time between two draws (at most four a second). */
export const LIVE_STATUS_MS = 250;

/** Where the line is drawn: the CLI's output (the one writer, src/cli/output.ts) and the terminal's width (undefined: 80). */
export interface StatusIo {
  readonly out: CliOutput;
  readonly columns: number | undefined;
}

/** A drawn status line; `stop()` erases it for good. */
export interface LiveStatus {
  /** Erases the line (before other output); the next draw puts it back. */
  clear(): void;
  /** Stops drawing and erases the line. */
  stop(): void;
}

/** What draws need besides the sampler (tests may give their own timer). */
export interface LiveStatusOptions {
  readonly every?: (fn: () => void, ms: number) => () => void;
}

const interval = (fn: () => void, ms: number): (() => void) => {
  const timer = setInterval(fn, ms);
  timer.unref();
  return () => clearInterval(timer);
};

/**
 * Draws agent `id`'s status on stderr while it runs, when stderr is a
 * terminal; `sample` returns its latest state (undefined: not known yet).
 */
export function startLiveStatus(id: number, io: StatusIo, sample: () => LiveSample | undefined, options: LiveStatusOptions = {}): LiveStatus {
  if (io.out.sinks.errIsTerminal !== true) return { clear: () => {}, stop: () => {} };
  let drawn = false;
  let stopped = false;
  const draw = (): void => {
    if (stopped) return;
    const s = sample();
    if (!s || !isLive(s.state)) return;
    io.out.statusLine(liveStatusLine(id, s, io.columns ?? 80));
    drawn = true;
  };
  const clear = (): void => {
    if (!drawn) return;
    io.out.eraseStatus();
    drawn = false;
  };
  const cancel = (options.every ?? interval)(draw, LIVE_STATUS_MS);
  return {
    clear,
    stop() {
      stopped = true;
      cancel();
      clear();
    },
  };
}

/** Keeps the last line of an agent's text from its events' text (the in-process sampler's). */
export class LastText {
  #tail = '';

  /** Takes a text chunk; only the end is kept. */
  push(text: string): void {
    this.#tail = (this.#tail + text).slice(-2_000);
  }

  /** The last non-empty line so far. */
  get line(): string {
    return lastLine(this.#tail);
  }
}

/** How often a spawn inside a cockpit asks it for the agent's status (the line redraws its elapsed time in between). */
export const COCKPIT_SAMPLE_MS = 1_000;

/**
 * A sampler for an agent the cockpit at `socket` supervises: its row and text so far every COCKPIT_SAMPLE_MS, the
 * elapsed time moving on between answers; a failed ask keeps the last sample.
 */
export function cockpitSampler(socket: string, id: number, every: LiveStatusOptions['every'] = interval): { sample: () => LiveSample | undefined; stop: () => void } {
  let last: { sample: LiveSample; at: number } | undefined;
  let busy = false;
  const ask = async (): Promise<void> => {
    if (busy) return;
    busy = true;
    try {
      const [status, poll] = await Promise.all([call(socket, { cmd: 'status' }), call(socket, { cmd: 'poll', id })]);
      const row = status.ok ? status.data.agents.find((r) => r.id === id) : undefined;
      if (row) last = { sample: { state: row.state, elapsedMs: row.elapsedMs, tools: row.tools, tokens: row.tokens, last: poll.ok ? lastLine(poll.data.text) : (last?.sample.last ?? '') }, at: Date.now() };
    } catch {
      // The cockpit is busy or gone: the result's long poll says so; the line keeps its last sample.
    } finally {
      busy = false;
    }
  };
  void ask();
  const stop = every(() => void ask(), COCKPIT_SAMPLE_MS);
  return {
    sample: () => (last ? { ...last.sample, elapsedMs: last.sample.elapsedMs + (isLive(last.sample.state) ? Date.now() - last.at : 0) } : undefined),
    stop,
  };
}
