/**
 * Drawing the cockpit: Ink renders the components (the chrome: headers,
 * separators, help, the mention line) into its own stdout, the pane source
 * gives every pane's cells as overlays, and the differential output stage
 * writes only what changed to the terminal, inside the alternate screen.
 * A failing draw is logged and drawing goes on (docs/architecture.md, "A
 * failing view never stops the work"); once stopped, the terminal is given back
 * as it was.
 */
import { PassThrough } from 'node:stream';
import React from 'react';
import { render, type Instance } from 'ink';
import { Cockpit } from '../../../components/Cockpit.js';
import { statusFacts, statusRow } from '../../../components/StatusLine.js';
import { paletteOf } from '../../core/panel/colors.js';
import { parseRow } from '../terminal/sgr-cells.js';
import { messageOf } from '../../core/errors.js';
import type { Board } from '../../../store/board.js';
import type { MentionPrompt } from '../../../store/mention-prompt.js';
import type { AgentList } from '../../../store/agent-list.js';
import type { PrefixSign } from '../../../store/prefix-sign.js';
import type { SteerLine } from '../../../store/steer-line.js';
import { steerOverlay } from './keys/steer-overlay.js';
import type { LivePaneSource } from '../terminal/pane-source.js';
import { InkStdout } from '../terminal/ink-stdout.js';
import type { CockpitTerminal } from './cockpit-terminal.js';
import { terminalTitle } from '../../core/text/title.js';
import { ENTER, LEAVE, MOUSE_ON, setTitle } from '../terminal/terminal-modes.js';
import { TermOutput, type CursorPlace, type Overlay, type TermOutputStats } from '../terminal/term-output.js';

/** What the cockpit draws and where. */
export interface DrawingOptions {
  readonly terminal: CockpitTerminal;
  readonly board: Board;
  readonly source: LivePaneSource;
  readonly prompt: MentionPrompt;
  readonly list: AgentList;
  /** The steering line, drawn over its panel's last row while open. */
  readonly steer?: SteerLine;
  readonly prefix: string;
  /** The cockpit's name on the status line. */
  readonly name: string;
  readonly now: () => number;
  /** Whether the prefix waits for its key. */
  readonly prefixSign: PrefixSign;
  /** Where the terminal's cursor goes after a frame, or null to hide it. */
  readonly cursor: () => CursorPlace;
  readonly log: (line: string) => void;
  /** Whether the terminal reports the mouse to tai (default true; TAI_MOUSE=0 turns it off). */
  readonly mouse?: boolean;
  /** Changes the panes' overlays before they are drawn (copy mode's selection and status). */
  readonly decorate?: (overlays: readonly Overlay[]) => readonly Overlay[];
  /** Ink rendered the chrome again (a panel's state, the layout, a prompt changed: never a tick's elapsed time alone). */
  readonly rendered?: () => void;
}

/** The cockpit being drawn. */
export interface Drawing {
  readonly stats: TermOutputStats;
  /** Rings the outer terminal (bell and OSC 9) through the output stage; nothing once drawing stopped. */
  ring(message: string): void;
  /**
   * Writes a typed key's echo, `chars` at (x, y) in `style`, before its frame
   * (TermOutput.ahead), unless something is drawn over the panes (the agent
   * list, the mention prompt), a frame of new chrome waits or nobody watches;
   * true when written.
   */
  ahead(x: number, y: number, chars: string, style: string): boolean;
  /** The terminal has a new size. */
  resize(cols: number, rows: number): void;
  /**
   * The main program wants every motion (DECSET 1003, not only drags): the
   * terminal is asked for it too while it does, as tmux does.
   */
  anyMotion(on: boolean): void;
  /** Puts text on the terminal's clipboard (OSC 52): only for the user's own copy, never an agent's. */
  clipboard(text: string): void;
  /** The main program set its title: the terminal's title follows it, made safe (tmux's set-titles). */
  title(raw: string): void;
  /** Stops drawing for good (the terminal is gone) without touching it. */
  pause(): void;
  /** Stops drawing, unmounts Ink and leaves the alternate screen; idempotent. */
  stop(): void;
}

/**
 * Draws the frames: the chrome Ink last rendered with the panes' overlays,
 * or, for a frame of new header text alone, those rows patched; nothing
 * while no client watches (the next one gets everything anew).
 */
class Frames {
  readonly out: TermOutput;
  /** False once the terminal is gone or drawing stopped. */
  drawing = true;
  /** A chrome frame arrived that no frame has drawn yet. */
  chromeUndrawn = false;
  /** A frame was skipped while no client was attached. */
  unwatched = false;

  /** The status row's last overlay, the text and the stores' states it was made from (the same object while they are). */
  private statusMade: { text: string; overlay: Overlay; from: readonly unknown[] } | undefined;

  constructor(private readonly options: DrawingOptions) {
    const { terminal } = options;
    this.out = new TermOutput((data) => terminal.write(data), terminal.cols, terminal.rows);
  }

  /** The status line as an overlay on its row, or none when the layout has no status row (the components leave it blank). */
  status(): Overlay[] {
    const { board, list, prefixSign, name, prefix } = this.options;
    const state = board.getState();
    const rect = state.layout.status;
    if (!rect) return [];
    // Every frame asks; the row is made again only when one of its stores published (the counts need no clock).
    const from = [state, list.getState(), prefixSign.getState()];
    const made = this.statusMade;
    if (made && made.from.every((x, i) => x === from[i])) return [made.overlay];
    const text = statusRow(statusFacts({ state, list, sign: prefixSign, name, prefix, counts: state.agentCounts() }), rect.cols, paletteOf(state.noColor));
    if (made && made.text === text && made.overlay.y === rect.y && made.overlay.cols === rect.cols) {
      this.statusMade = { ...made, from };
      return [made.overlay];
    }
    const overlay: Overlay = { x: rect.x, y: rect.y, cols: rect.cols, rows: [parseRow(text, rect.cols)] };
    this.statusMade = { text, overlay, from };
    return [overlay];
  }

  /**
   * The status line's text alone changed (the cockpit's cost, the prefix sign): its row is patched, with no
   * React render and no frame of the panes; a full frame when one waits or something covers the row.
   */
  statusChanged(): void {
    const { terminal, prompt, log } = this.options;
    if (!this.drawing || !terminal.watched()) return;
    if (this.chromeUndrawn || this.unwatched || prompt.getState().line !== null) return this.draw();
    try {
      if (!this.out.patch(this.status())) this.draw();
    } catch (err) {
      log(`drawing failed: ${messageOf(err)}`);
    }
  }

  /** Ink rendered `frame`: kept as the chrome. A render outside the pane source's cue is drawn in this loop turn. */
  chrome(frame: string): void {
    if (!this.drawing) return;
    this.options.rendered?.();
    this.out.setChrome(frame);
    // A render outside the pane source's cue (the mention line's, the agent list's or the prefix sign's own
    // store changed) is drawn in this loop turn; one inside a cue is drawn by the cue's frame, which runs first.
    this.chromeUndrawn = true;
    setImmediate(() => {
      if (this.chromeUndrawn) this.draw();
    });
  }

  draw(headers?: readonly number[]): void {
    const { terminal, board, source, prompt, log } = this.options;
    if (!this.drawing) return;
    if (!terminal.watched()) {
      this.chromeUndrawn = false;
      this.unwatched = true; // nobody attached: the next client gets everything anew
      return;
    }
    if (this.unwatched) {
      this.unwatched = false;
      this.out.repaint();
    }
    if (headers !== undefined && !this.chromeUndrawn && this.drawHeaders(headers)) return;
    this.chromeUndrawn = false;
    try {
      // The agent list covers the panes: none of their cells are drawn over it.
      const panes = this.options.list.getState().open ? [] : steerOverlay(source.overlays(), board, this.options.steer);
      const overlays = [...(this.options.decorate ? this.options.decorate(panes) : panes), ...this.status()];
      this.out.draw(prompt.getState().line === null ? overlays : above(overlays, board.getState().rows - 1), this.options.cursor());
    } catch (err) {
      log(`drawing failed: ${messageOf(err)}`);
    }
  }

  /**
   * A frame of new header text only (a silent cockpit's second): those rows
   * alone are patched, when nothing is drawn over them (the agent list, the
   * mention prompt, the steering line, copy mode); false leaves it to a full frame.
   */
  private drawHeaders(ids: readonly number[]): boolean {
    const { options } = this;
    if (options.list.getState().open || options.prompt.getState().line !== null) return false;
    const heads = options.source.headerOverlays(ids);
    if (!heads || steerOverlay(heads, options.board, options.steer) !== heads || (options.decorate && options.decorate(heads) !== heads)) return false;
    try {
      return this.out.patch(heads);
    } catch (err) {
      options.log(`drawing failed: ${messageOf(err)}`);
      return true;
    }
  }
}

/** Enters the alternate screen and draws every frame the pane source cues. */
export function startDrawing(options: DrawingOptions): Drawing {
  const { terminal, source, prompt } = options;
  const frames = new Frames(options);
  const { out } = frames;
  const inkOut = new InkStdout(terminal.cols, terminal.rows, (frame) => frames.chrome(frame));
  source.onFrame((headers) => frames.draw(headers));

  /** The terminal modes the cockpit has on, as one string: what a client that attaches is sent first. */
  const modes = (): string => (options.mouse === false ? ENTER : ENTER + MOUSE_ON + (motion ? '\x1b[?1003h' : '')) + (title === null ? '' : setTitle(title));
  let title: string | null = null;
  let motion = false;
  terminal.write(modes());
  const instance = renderChrome(options, inkOut);
  const offTerminal = followTerminal(options, frames, modes);
  const offStatus = followStatus(options, frames);

  let stopped = false;
  return {
    stats: out.stats,
    anyMotion(on) {
      if (!frames.drawing || options.mouse === false || on === motion) return;
      motion = on;
      terminal.write(on ? '\x1b[?1003h' : '\x1b[?1003l');
    },
    clipboard(text) {
      if (frames.drawing) terminal.write(`\x1b]52;c;${Buffer.from(text, 'utf8').toString('base64')}\x07`);
    },
    title(raw) {
      const safe = terminalTitle(raw);
      if (!frames.drawing || safe === title) return;
      title = safe;
      terminal.write(setTitle(safe)); // between frames: the same stream, and a frame is one write
    },
    ring(message) {
      if (frames.drawing) out.ring(message);
    },
    ahead(x, y, chars, style) {
      if (!frames.drawing || frames.chromeUndrawn || frames.unwatched || !terminal.watched() || options.list.getState().open || prompt.getState().line !== null) return false;
      return out.ahead(x, y, chars, style);
    },
    resize(c, r) {
      out.resize(c, r);
      inkOut.resize(c, r);
    },
    pause() {
      frames.drawing = false;
    },
    stop() {
      if (stopped) return;
      stopped = true;
      frames.drawing = false;
      offTerminal();
      offStatus();
      source.stop();
      try {
        instance.unmount();
      } catch {
        // Unmounting a broken tree must not keep the terminal in the alternate screen.
      }
      // Cleared first where the terminal keeps no title stack, then popped where it does.
      terminal.leave((title === null ? '' : setTitle('')) + LEAVE);
    },
  };
}

/** Renders the components (the chrome) with Ink into `inkOut`, which hands each frame to the output stage. */
function renderChrome(options: DrawingOptions, inkOut: InkStdout): Instance {
  const { board, source, prompt, list, name, now, prefixSign } = options;
  const inkIn = Object.assign(new PassThrough(), { isTTY: false }) as unknown as NodeJS.ReadStream;
  return render(React.createElement(Cockpit, { board, source, prefix: options.prefix, prompt, list, name, now, prefixSign, statusDrawn: true }), {
    stdout: inkOut as unknown as NodeJS.WriteStream,
    stdin: inkIn,
    debug: true, // every commit is written at once to our output stage, which diffs it; the cue throttles React
    exitOnCtrlC: false,
    patchConsole: false,
  });
}

/** Follows the terminal's clients: drawing stops when it is gone, and a client that attaches gets the modes, then everyone a whole frame. Returns the unsubscribe. */
function followTerminal(options: DrawingOptions, frames: Frames, modes: () => string): () => void {
  const { terminal, source, log } = options;
  // A terminal that went away fails writes: stop drawing, supervision goes on.
  const offGone = terminal.onGone((why) => {
    frames.drawing = false;
    log(`terminal write failed: ${why}`);
  });
  const offAttach = terminal.onAttach((send) => {
    if (!frames.drawing) return;
    send(modes());
    frames.out.repaint();
    source.dirty();
  });
  return () => {
    offGone();
    offAttach();
  };
}

/** Patches the status row when its own stores change: the cockpit's cost (every few seconds) and the prefix sign. Returns the unsubscribe. */
function followStatus(options: DrawingOptions, frames: Frames): () => void {
  const offList = options.list.subscribe((now, before) => {
    if (now.own !== before.own) frames.statusChanged();
  });
  const offSign = options.prefixSign.subscribe(() => frames.statusChanged());
  return () => {
    offList();
    offSign();
  };
}

/** The overlays cut above row `y` (the mention prompt's row is chrome while it is open). */
function above(overlays: readonly Overlay[], y: number): Overlay[] {
  return overlays.flatMap((o) => (o.y >= y ? [] : o.y + o.rows.length <= y ? [o] : [{ ...o, rows: o.rows.slice(0, y - o.y) }]));
}
