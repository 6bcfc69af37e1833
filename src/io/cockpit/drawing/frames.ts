/**
 * The frames of a drawn cockpit (drawing.ts): the chrome Ink last rendered
 * with the panes' overlays and the status line pasted over it, or a frame of
 * header rows or of the status row alone, patched.
 */
import { statusFacts, statusRow } from '../../../../components/StatusLine.js';
import { paletteOf } from '../../../core/panel/colors.js';
import { parseRow } from '../../terminal/sgr-cells.js';
import { messageOf } from '../../../core/errors.js';
import type { Board } from '../../../../store/board.js';
import type { MentionPrompt } from '../../../../store/mention-prompt.js';
import type { AgentList } from '../../../../store/agent-list.js';
import type { PrefixSign } from '../../../../store/prefix-sign.js';
import type { SteerLine } from '../../../../store/steer-line.js';
import { steerOverlay } from '../keys/steer-overlay.js';
import type { LivePaneSource } from '../../terminal/pane-source.js';
import type { CockpitTerminal } from '../cockpit-terminal.js';
import { TermOutput, type CursorPlace, type Overlay } from '../../terminal/term-output.js';

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

/**
 * Draws the frames: the chrome Ink last rendered with the panes' overlays,
 * or, for a frame of new header text alone, those rows patched; nothing
 * while no client watches (the next one gets everything anew).
 */
export class Frames {
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

/** The overlays cut above row `y` (the mention prompt's row is chrome while it is open). */
function above(overlays: readonly Overlay[], y: number): Overlay[] {
  return overlays.flatMap((o) => (o.y >= y ? [] : o.y + o.rows.length <= y ? [o] : [{ ...o, rows: o.rows.slice(0, y - o.y) }]));
}
