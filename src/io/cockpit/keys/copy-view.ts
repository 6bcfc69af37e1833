/**
 * Copy mode on the screen (the state is src/core/input/copy-mode.ts): the focused pane's buffer read as lines, its view
 * moved, the copy cursor as the terminal's cursor, the selection inverted, a status at the top right as tmux's. The copy
 * goes to the terminal's clipboard (OSC 52) only on the user's own key; agents never reach it.
 */
import xterm from '@xterm/headless';
import { copyKey, copyScrollback, copyStart, selectionOn, type CopyBuffer, type CopyState } from '../../../core/input/copy-mode.js';
import { drawn, type PaneId, type Rect } from '../../../core/panel/layout.js';
import type { Command } from '../../../core/protocol/commands.js';
import type { Board } from '../../../../store/board.js';
import { XtermScreen } from '../../terminal/screen.js';
import { parseRow, type CellRow } from '../../terminal/sgr-cells.js';
import type { CursorPlace, Overlay } from '../../terminal/term-output.js';

type Terminal = InstanceType<typeof xterm.Terminal>;

/** Characters a copy may hold: terminals drop larger OSC 52 writes (xterm's default limit is about this). */
export const COPY_MAX = 100_000;

/** Says a selection is too large to copy. */
export const tooLarge = (n: number): string => `selection too large to copy (${n} characters, limit ${COPY_MAX})`;

const INVERSE = parseRow('\x1b[7m ', 1).styles[0] ?? '7';

/** What copy mode works with. */
export interface CopyViewOptions {
  readonly board: Board;
  /** The main pane's screen. */
  readonly main: XtermScreen;
  readonly dispatch: (command: Command) => void;
  /** Writes text to the terminal's clipboard. */
  readonly clipboard: (text: string) => void;
  /** Something to draw changed. */
  readonly changed: () => void;
}

/** A pane's buffer as copy mode reads it. */
export function bufferOf(term: Terminal): CopyBuffer {
  const buf = term.buffer.active;
  return {
    length: buf.length,
    rows: term.rows,
    cols: term.cols,
    line: (y) => buf.getLine(y)?.translateToString(true) ?? '',
    wrapped: (y) => buf.getLine(y + 1)?.isWrapped ?? false,
  };
}

/** Copy mode on the focused pane; one per cockpit. */
export class CopyView {
  private state: CopyState | null = null;
  private pane: PaneId = 'main';

  constructor(private readonly o: CopyViewOptions) {}

  /** True while copy mode is on. */
  get active(): boolean {
    return this.state !== null;
  }

  /** Starts copy mode on the focused pane; false when it has no screen. */
  start(): boolean {
    const s = this.o.board.getState();
    const term = this.termOf(s.focus);
    if (!term) return false;
    this.pane = s.focus;
    const buf = bufferOf(term);
    // In the main pane at the bottom, the copy cursor starts where the program's cursor is (tmux does).
    const at = s.focus === 'main' && s.scrollback === 0 ? { x: term.buffer.active.cursorX, y: term.buffer.active.baseY + term.buffer.active.cursorY } : undefined;
    this.state = copyStart(buf, s.scrollback, at);
    this.o.changed();
    return true;
  }

  /** One key; false once copy mode has ended. */
  key(key: string): boolean {
    const term = this.termOf(this.pane);
    if (!this.state || !term || this.o.board.getState().focus !== this.pane) return this.end();
    const buf = bufferOf(term);
    const step = copyKey(this.state, key, buf);
    if (step.copied !== undefined) {
      if (step.copied.length > COPY_MAX) {
        this.state = { ...this.state, message: tooLarge(step.copied.length) };
        this.o.changed();
        return true;
      }
      this.o.clipboard(step.copied);
    }
    if (step.state === null) return this.end();
    this.state = step.state;
    const want = copyScrollback(step.state, buf);
    const now = this.o.board.getState().scrollback;
    if (want !== now) this.o.dispatch({ cmd: 'scroll', lines: now - want });
    this.o.changed();
    return true;
  }

  /** Where the terminal's cursor goes while copy mode is on (undefined when it is off). */
  cursor(): CursorPlace | undefined {
    const place = this.place();
    if (!place || !this.state) return undefined;
    const row = this.state.cursor.y - this.state.top;
    if (row < 0 || row >= place.rect.rows - (place.screenTop - place.rect.y)) return null;
    return { x: place.rect.x + Math.min(this.state.cursor.x, place.rect.cols - 1), y: place.screenTop + row };
  }

  /** The pane's overlays with the selection inverted and the status at its top right. */
  decorate(overlays: readonly Overlay[]): readonly Overlay[] {
    const place = this.place();
    const s = this.state;
    if (!place || !s) return overlays;
    const { rect, screenTop } = place;
    const out = overlays.map((o) => {
      if (s.mark === null || o.x !== rect.x || o.y < screenTop || o.y >= rect.y + rect.rows) return o;
      return { ...o, rows: o.rows.map((row, r) => inverted(row, selectionOn(s, s.top + o.y + r - screenTop, rect.cols))) };
    });
    const status = s.search !== null ? `/${s.search}` : s.message !== '' ? s.message : `[${s.cursor.y + 1}/${this.lines()}]`;
    const text = ` ${status} `.slice(-rect.cols);
    out.push({ x: rect.x + rect.cols - text.length, y: rect.y, cols: text.length, rows: [parseRow(`\x1b[7m${text}`, text.length)] });
    return out;
  }

  private lines(): number {
    return this.termOf(this.pane)?.buffer.active.length ?? 0;
  }

  private end(): false {
    const was = this.state !== null;
    this.state = null;
    if (was) {
      this.o.dispatch({ cmd: 'scroll', pages: 0 }); // back to the bottom, as tmux leaves copy mode
      this.o.changed();
    }
    return false;
  }

  private place(): { rect: Rect; screenTop: number } | undefined {
    if (!this.state) return undefined;
    const found = drawn(this.o.board.getState().layout).panes.find((p) => p.id === this.pane);
    return found && { rect: found.rect, screenTop: this.pane === 'main' ? found.rect.y : found.rect.y + 1 };
  }

  private termOf(pane: PaneId): Terminal | undefined {
    if (pane === 'main') return this.o.main.term;
    const screen = this.o.board.getState().screenOf(pane);
    return screen instanceof XtermScreen ? screen.term : undefined;
  }
}

/** A row with the columns [from, to] drawn inverted. */
function inverted(row: CellRow, span: readonly [number, number] | null): CellRow {
  if (span === null) return row;
  const styles = row.styles.map((st, x) => (x >= span[0] && x <= span[1] ? INVERSE : st));
  return { chars: row.chars, styles };
}
