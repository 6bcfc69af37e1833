/**
 * Which lines of a headless terminal its parser wrote since they were last
 * read: a keypress's echo changes one row of the main pane, and reading all
 * of its rows' cells again to find that row cost most of the server's time
 * per key (docs/perf-log.md, "Server and client").
 *
 * xterm.js tells its renderer which viewport rows each parse touched (the
 * internal `onRequestRefreshRows`; every scroll marks its whole scroll
 * region, so lines that xterm recycled round to the rows they were on are
 * noted too). Those rows' line objects are noted, so a line that
 * has not moved (the same object on the same row as last read) and is not
 * noted is known unchanged. A line that moved is compared by the reader as
 * before. Not public API: when the shape is not this one, every line counts
 * as written.
 */
import type xterm from '@xterm/headless';

type Terminal = InstanceType<typeof xterm.Terminal>;

/** The parts of xterm's core read here (xterm.js 5.5 and 6). */
interface CoreInternals {
  readonly _inputHandler?: { readonly onRequestRefreshRows?: (fn: (range: { start: number; end: number } | undefined) => void) => unknown };
  readonly buffer?: { readonly ybase: number; readonly ydisp: number; readonly lines: { get(i: number): object | undefined } };
}

/** Lines written since the last `take`. */
export interface Written {
  /** Every line counts as written (a buffer switch, a resize, too many lines, unknown internals). */
  readonly all: boolean;
  readonly lines: ReadonlySet<object>;
}

/** How many written lines are noted, in screens, before it is simpler to say all. */
const SCREENS_NOTED = 2;

/** Notes the lines a terminal's parser writes; `take` hands them over and starts again. */
export class DirtyLines {
  private all = true;
  private lines = new Set<object>();
  private readonly watching: boolean;

  constructor(private readonly term: Terminal) {
    const core = (term as unknown as { _core?: CoreInternals })._core;
    const handler = core?._inputHandler;
    this.watching = core !== undefined && typeof handler?.onRequestRefreshRows === 'function' && typeof core.buffer?.lines?.get === 'function';
    if (!this.watching || core === undefined || handler?.onRequestRefreshRows === undefined) return;
    handler.onRequestRefreshRows((range) => this.note(core, range));
    term.onResize(() => (this.all = true));
  }

  private note(core: CoreInternals, range: { start: number; end: number } | undefined): void {
    const buf = core.buffer;
    if (this.all) return;
    // The rows are the viewport's; a viewport scrolled away from the bottom is not followed here.
    if (range === undefined || buf === undefined || buf.ydisp !== buf.ybase || this.lines.size > SCREENS_NOTED * this.term.rows) {
      this.all = true;
      return;
    }
    for (let y = range.start; y <= range.end; y++) {
      const line = buf.lines.get(buf.ybase + y);
      if (line !== undefined) this.lines.add(line);
    }
  }

  /** The lines written since the last take (all of them the first time). */
  take(): Written {
    const out: Written = { all: this.all, lines: this.lines };
    this.all = !this.watching;
    this.lines = new Set();
    return out;
  }
}
