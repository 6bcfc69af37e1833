/**
 * Which lines of a headless terminal its parser wrote since they were last read: an echo changes one row, and reading
 * every row's cells to find it cost most of the server's time a key (docs/perf-log.md, "Server and client"). The rows
 * xterm.js tells its renderer of (xterm-internals.ts) have their line objects noted; a line not noted and not moved is
 * unchanged, a moved one is compared by the reader. Without the internals every line counts as written.
 */
import type xterm from '@xterm/headless';
import { activeLinesOf, onRowsWritten, type XtermLines } from './xterm-internals.js';

type Terminal = InstanceType<typeof xterm.Terminal>;

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
  /** `term.buffer`, kept: its getter checks the proposed-API option on every call. */
  private readonly buffers: Terminal['buffer'];

  /** The active buffer's line objects, found once. */
  private readonly active: (() => XtermLines | undefined) | undefined;

  constructor(private readonly term: Terminal) {
    this.buffers = term.buffer;
    this.active = activeLinesOf(term);
    this.watching = this.active?.() !== undefined && onRowsWritten(term, (range) => this.note(range));
    if (this.watching) term.onResize(() => (this.all = true));
  }

  private note(range: { start: number; end: number } | undefined): void {
    if (this.all) return;
    const buf = this.buffers.active;
    const lines = this.active?.();
    // The rows are the viewport's; a viewport scrolled away from the bottom is not followed here.
    if (range === undefined || lines === undefined || buf.viewportY !== buf.baseY || this.lines.size > SCREENS_NOTED * this.term.rows) {
      this.all = true;
      return;
    }
    for (let y = range.start; y <= range.end; y++) {
      const line = lines.get(buf.baseY + y);
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
