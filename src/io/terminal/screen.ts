/**
 * The real screen: an `@xterm/headless` terminal holding a pane's cells and
 * scrollback. The package's named export fails at run time on Node 20, hence
 * the default import.
 */
import xterm from '@xterm/headless';
import type { Screen } from '../../core/screen.js';
import { CsiClamp } from '../../core/text/csi-clamp.js';
import { FloodSkip } from './flood-skip.js';
import { cellSgr, type CellStyle } from './screen-rows.js';
import { parseNextAtOnce, printSpot, wholeScreenScrolls, type PrintSpot } from './xterm-internals.js';

/** The cells a chunk will print: `chars` from column `x` of visible row `y`, all in `style` (SGR parameters). */
export interface Ahead {
  readonly x: number;
  readonly y: number;
  readonly chars: string;
  readonly style: string;
}

const { Terminal } = xterm;

/** Lines of scrollback a panel keeps. */
export const PANEL_SCROLLBACK = 2_000;

/**
 * Lines of scrollback the main pane keeps: tmux's default history-limit, as with more the line buffers no longer fit
 * the caches and a flood parses slower (docs/performance.md, "Optimisations that stay").
 */
export const MAIN_SCROLLBACK = 2_000;

/**
 * A headless terminal behind the board's Screen interface. All it shows goes through `write`, counts clamped and
 * work cut into slices (src/core/text/csi-clamp.ts), so no output holds the supervising loop (docs/security.md).
 */
export class XtermScreen implements Screen {
  /** The terminal, read only through `term`, which settles it first. */
  private readonly xterm: InstanceType<typeof Terminal>;
  private readonly clamp: CsiClamp;

  /** Parses the next write at once (xterm-internals.ts), else undefined (then on xterm's timer). */
  private readonly atOnce: (() => void) | undefined;

  /** Where an echo prints (xterm-internals.ts), else undefined (no echo ahead). */
  private readonly spot: ((count: number) => PrintSpot | undefined) | undefined;

  /** The main screen's: a flood of plain lines is parsed only as far as it stays visible (flood-skip.ts). */
  readonly flood: FloodSkip | undefined;

  /** Output held by writeAfterTurn until its parse. */
  private held: { readonly data: string; readonly callback: (() => void) | undefined } | undefined;

  /** writeAfterTurn's timer: one per screen, refreshed for each echo (none is made between an echo and the server's sleep). */
  private turn: NodeJS.Timeout | undefined;

  /** Writes given to xterm.js whose parsing has not finished. */
  private unparsed = 0;

  /** The terminal, with any output writeAfterTurn holds parsed first: no reader of a screen sees it short of an echo. */
  get term(): InstanceType<typeof Terminal> {
    this.settle();
    return this.xterm;
  }

  /**
   * Parses output as it arrives, not on xterm.js's timer: a timer before each pty read left `seq` idle, and a panel's
   * text parsed later than its header cost a second frame a tick (docs/performance.md, "Optimisations that stay").
   * `main`: the main pane's screen, where a flood is parsed only as far as it stays in the scrollback (FloodSkip).
   */
  constructor(cols: number, rows: number, private readonly scrollback: number = PANEL_SCROLLBACK, main = false) {
    this.xterm = new Terminal({ cols: Math.max(1, cols), rows: Math.max(1, rows), scrollback, allowProposedApi: true });
    this.atOnce = parseNextAtOnce(this.xterm);
    this.spot = printSpot(this.xterm);
    this.clamp = new CsiClamp(cols, rows, !main);
    this.flood = main ? new FloodSkip({ write: (d, cb) => this.parse(d, cb), keep: () => this.keep(), trimmable: () => this.trimmable() }) : undefined;
  }

  /**
   * Feeds terminal output; parsing completes asynchronously, `callback` runs
   * once all of it is parsed. The slices queue in xterm's write buffer, which
   * parses them in order and yields to the event loop (a timer) every 12 ms.
   */
  write(data: string, callback?: () => void): void {
    this.settle();
    if (this.flood) this.flood.write(data, callback);
    else this.parse(data, callback);
  }

  private parse(data: string, callback?: () => void): void {
    const slices = this.clamp.push(data);
    if (slices.length === 0 && callback === undefined) return; // all of it held (a sequence begun): nothing to parse yet
    this.atOnce?.();
    // What waits to be parsed is counted (FloodSkip cuts nothing then).
    this.unparsed++;
    const done = (): void => {
      this.unparsed--;
      callback?.();
    };
    const last = slices.length - 1;
    for (let i = 0; i < last; i++) this.xterm.write(slices[i]!);
    this.xterm.write(last >= 0 ? slices[last]! : '', done);
  }

  /**
   * What `data`, the main program's next output, will print, known before xterm.js parses it (TermOutput.ahead): a
   * typed key's echo, when it is printable ASCII parsed in this turn from the ground state; undefined otherwise.
   */
  echoOf(data: string): Ahead | undefined {
    this.settle(); // the echo is predicted from what came before it
    if (data.length === 0 || this.atOnce === undefined || this.spot === undefined || this.unparsed > 0 || !this.clamp.ground() || !(this.flood?.passes(data) ?? true)) return undefined;
    for (let i = 0; i < data.length; i++) {
      const c = data.charCodeAt(i);
      if (c < 0x20 || c > 0x7e) return undefined;
    }
    const spot = this.spot(data.length);
    if (spot === undefined) return undefined;
    return { x: spot.x, y: spot.y, chars: data, style: spot.pen === undefined ? '' : cellSgr(spot.pen as CellStyle) };
  }

  /** Line feeds that push every line kept now out of the buffer, from any row (FloodSkip's cut). */
  private keep(): number {
    return this.scrollback + 2 * this.xterm.rows;
  }

  /** Whether the screen is where FloodSkip may cut lines: all parsed, at ground, the normal buffer, no scroll region, no reverse wraparound. */
  private trimmable(): boolean {
    // Reverse wraparound (DECSET 45) lets a backspace at the left edge reach the line above: lines are then not independent.
    if (this.unparsed > 0 || !this.clamp.ground() || this.xterm.buffer.active.type !== 'normal' || this.xterm.modes.reverseWraparoundMode) return false;
    return wholeScreenScrolls(this.xterm);
  }

  /** Follows the pane's size; counts are clamped to the new one. */
  resize(cols: number, rows: number): void {
    this.settle();
    this.flood?.flush(); // held lines are parsed at the size they were written for
    this.xterm.resize(Math.max(1, cols), Math.max(1, rows));
    this.clamp.resize(cols, rows);
  }

  /**
   * Writes output the terminal shows already (the echo ahead), parsed a timer's turn later so the terminal just woken
   * by the echo runs first (docs/performance.md, "Echo ahead"). The screen settles itself before any read or write.
   */
  writeAfterTurn(data: string, callback?: () => void): void {
    this.settle();
    this.held = { data, callback };
    // A timer that fires with nothing held (settled sooner) does nothing.
    if (this.turn === undefined) this.turn = setTimeout(() => this.settle(), 0);
    else this.turn.refresh();
  }

  /** Parses what writeAfterTurn holds, now; the frame clock calls it to draw the parse in the frame it is drawing. */
  settle(): void {
    const held = this.held;
    if (held === undefined) return;
    this.held = undefined;
    this.write(held.data, held.callback);
  }

  /** Lines kept above the visible rows: how far the pane can be scrolled back. */
  history(): number {
    return this.term.buffer.active.baseY;
  }

  /** Frees the terminal. */
  dispose(): void {
    clearTimeout(this.turn);
    this.held = undefined;
    this.flood?.stop();
    this.xterm.dispose();
  }

  /** Resolves once everything written so far has been parsed. */
  parsed(): Promise<void> {
    this.settle();
    this.flood?.flush();
    return new Promise((resolve) => this.xterm.write('', resolve));
  }

  /** The visible rows as plain text, right-trimmed (for tests and status). */
  text(): string[] {
    this.settle();
    const buf = this.xterm.buffer.active; // settled above
    const out: string[] = [];
    for (let y = 0; y < this.xterm.rows; y++) {
      out.push(buf.getLine(buf.viewportY + y)?.translateToString(true) ?? '');
    }
    return out;
  }
}

/** The board's screen factory for real screens. */
export const xtermScreens = (cols: number, rows: number): XtermScreen => new XtermScreen(cols, rows);
