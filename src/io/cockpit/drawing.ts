/**
 * Drawing the cockpit: Ink renders the components (the chrome: headers,
 * separators, help, the mention line) into its own stdout, the pane source
 * gives every pane's cells as overlays, and the differential output stage
 * writes only what changed to the terminal, inside the alternate screen.
 * A failing draw is logged and drawing goes on (STYLE.md habit 12); once
 * stopped, the terminal is given back as it was.
 */
import { PassThrough } from 'node:stream';
import React from 'react';
import { render, type Instance } from 'ink';
import { Cockpit } from '../../../components/Cockpit.js';
import { messageOf } from '../../core/errors.js';
import type { Board } from '../../../store/board.js';
import type { MentionPrompt } from '../../../store/mention-prompt.js';
import type { SteerLine } from '../../../store/steer-line.js';
import { steerOverlay } from './steer-overlay.js';
import type { LivePaneSource } from '../terminal/pane-source.js';
import { fdOf, InkStdout } from '../terminal/ink-stdout.js';
import { ENTER, LEAVE, writeNow } from '../terminal/terminal-modes.js';
import { TermOutput, type CursorPlace, type Overlay, type TermOutputStats } from '../terminal/term-output.js';

/** What the cockpit draws and where. */
export interface DrawingOptions {
  readonly stdout: NodeJS.WriteStream;
  readonly board: Board;
  readonly source: LivePaneSource;
  readonly prompt: MentionPrompt;
  /** The steering line, drawn over its panel's last row while open. */
  readonly steer?: SteerLine;
  readonly prefix: string;
  /** Where the terminal's cursor goes after a frame, or null to hide it. */
  readonly cursor: () => CursorPlace;
  readonly log: (line: string) => void;
}

/** The cockpit being drawn. */
export interface Drawing {
  readonly stats: TermOutputStats;
  /** Rings the outer terminal (bell and OSC 9) through the output stage; nothing once drawing stopped. */
  ring(message: string): void;
  /** The terminal has a new size. */
  resize(cols: number, rows: number): void;
  /** Stops drawing for good (the terminal is gone) without touching it. */
  pause(): void;
  /** Stops drawing, unmounts Ink and leaves the alternate screen; idempotent. */
  stop(): void;
}

/** Enters the alternate screen and draws every frame the pane source cues. */
export function startDrawing(options: DrawingOptions): Drawing {
  const { stdout, board, source, prompt, log } = options;
  const cols = stdout.columns || 80;
  const rows = stdout.rows || 24;
  const out = new TermOutput((data) => stdout.write(data), cols, rows);
  let drawing = true;
  const inkOut = new InkStdout(cols, rows, (frame) => {
    if (drawing) out.setChrome(frame);
  });
  source.onFrame(() => {
    if (!drawing) return;
    try {
      const overlays = steerOverlay(source.overlays(), board, options.steer);
      out.draw(prompt.getState().line === null ? overlays : above(overlays, board.getState().rows - 1), options.cursor());
    } catch (err) {
      log(`drawing failed: ${messageOf(err)}`);
    }
  });
  const inkIn = Object.assign(new PassThrough(), { isTTY: false }) as unknown as NodeJS.ReadStream;

  stdout.write(ENTER);
  const instance: Instance = render(React.createElement(Cockpit, { board, source, prefix: options.prefix, prompt }), {
    stdout: inkOut as unknown as NodeJS.WriteStream,
    stdin: inkIn,
    debug: true, // every commit is written at once to our output stage, which diffs it; the cue throttles React
    exitOnCtrlC: false,
    patchConsole: false,
  });
  // A terminal that went away fails writes: stop drawing, supervision goes on.
  stdout.on('error', (err) => {
    drawing = false;
    log(`terminal write failed: ${err.message}`);
  });

  let stopped = false;
  return {
    stats: out.stats,
    ring(message) {
      if (drawing) out.ring(message);
    },
    resize(c, r) {
      out.resize(c, r);
      inkOut.resize(c, r);
    },
    pause() {
      drawing = false;
    },
    stop() {
      if (stopped) return;
      stopped = true;
      drawing = false;
      source.stop();
      try {
        instance.unmount();
      } catch {
        // Unmounting a broken tree must not keep the terminal in the alternate screen.
      }
      writeNow(fdOf(stdout), LEAVE);
    },
  };
}

/** The overlays cut above row `y` (the mention prompt's row is chrome while it is open). */
function above(overlays: readonly Overlay[], y: number): Overlay[] {
  return overlays.flatMap((o) => (o.y >= y ? [] : o.y + o.rows.length <= y ? [o] : [{ ...o, rows: o.rows.slice(0, y - o.y) }]));
}
