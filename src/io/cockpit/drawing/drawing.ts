/**
 * The folder `src/io/cockpit/drawing/`: a drawn cockpit's frames, Ink's chrome and the panes' overlays through the
 * output stage. This file, its main one: Ink renders the chrome, the pane source gives each pane's cells as overlays,
 * and the output stage writes only what changed, inside the alternate screen. A failing draw is logged and drawing
 * goes on (docs/architecture.md, "A failing view never stops the work"); once stopped, the terminal is given back.
 */
import { PassThrough } from 'node:stream';
import React from 'react';
import { render, type Instance } from 'ink';
import { Cockpit } from '../../../../components/Cockpit.js';
import { InkStdout } from '../../terminal/ink-stdout.js';
import { terminalTitle } from '../../../core/text/title.js';
import { ENTER, LEAVE, MOUSE_ON, setTitle } from '../../terminal/terminal-modes.js';
import type { TermOutputStats } from '../../terminal/term-output.js';
import { Frames, type DrawingOptions } from './frames.js';

export type { DrawingOptions } from './frames.js';

/** The cockpit being drawn. */
export interface Drawing {
  readonly stats: TermOutputStats;
  /** Rings the outer terminal (bell and OSC 9) through the output stage; nothing once drawing stopped. */
  ring(message: string): void;
  /**
   * Writes a typed key's echo, `chars` at (x, y) in `style`, before its frame (TermOutput.ahead); true when written,
   * false when something is drawn over the panes, a frame of new chrome waits or nobody watches.
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
