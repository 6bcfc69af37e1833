/**
 * A typed key's echo, known before xterm.js parses it (issue 17, keypress
 * to echo). A shell or `cat` echoes a printable key as that very character
 * at the cursor, in the current pen. For such a chunk, xterm.js's print is
 * known in advance: each character goes in the next cell, in the pen's
 * attributes, and the cursor moves past them. The output stage writes those
 * cells at once (TermOutput.ahead); xterm.js then parses the chunk as
 * always, and the frame after it, made from the parsed screen, finds them
 * drawn already (or draws the truth over a wrong guess), so the screen is
 * xterm.js's in every frame.
 *
 * Only when print can do nothing else: printable ASCII, every cell before
 * the right edge, the parser at ground with all before it parsed, no
 * charset that maps characters (DEC graphics), no insert mode, and no wide
 * character beside the cells (print would blank its other half). Read from
 * xterm.js's internals (not public API), each checked; when their shape is
 * not this, nothing is known ahead and the frame draws the echo.
 */
import { cellSgr, type CellStyle } from './screen-rows.js';
import type { XtermScreen } from './screen.js';

/** The cells a chunk will print: `chars` from column `x` of visible row `y`, all in `style` (SGR parameters). */
export interface Ahead {
  readonly x: number;
  readonly y: number;
  readonly chars: string;
  readonly style: string;
}

/** An echo ahead made ready before its echo came (TermOutput.prepareAhead). */
export interface PreparedAhead {
  /** Writes `chars` (as many as it was made for) while nothing was drawn since it was made (the same cursor, row and size); false, writing nothing, otherwise. */
  write(chars: string): boolean;
}

/** The parts of xterm.js's input handler read here (xterm.js 5.5 and 6). */
interface HandlerInternals {
  readonly _parser?: { readonly currentState?: unknown };
  readonly _charsetService?: { readonly charset?: unknown };
  readonly _coreService?: { readonly modes?: { readonly insertMode?: unknown } };
  readonly _curAttrData?: Partial<CellStyle>;
  readonly _activeBuffer?: {
    readonly x?: unknown;
    readonly y?: unknown;
    readonly ybase?: unknown;
    readonly lines?: { get?(i: number): { getWidth?(x: number): number } | undefined };
  };
}

/** xterm.js's parser state for plain text. */
const GROUND = 0;

/** What `data`, the main program's next output, will print on `screen`; undefined unless it is only that. */
export function echoAhead(screen: XtermScreen, data: string): Ahead | undefined {
  if (data.length === 0) return undefined;
  for (let i = 0; i < data.length; i++) {
    const c = data.charCodeAt(i);
    if (c < 0x20 || c > 0x7e) return undefined;
  }
  if (!screen.parsesAtOnce(data)) return undefined;
  const handler = (screen.term as unknown as { _core?: { _inputHandler?: HandlerInternals } })._core?._inputHandler;
  const buffer = handler?._activeBuffer;
  const pen = handler?._curAttrData;
  if (handler?._parser?.currentState !== GROUND || handler._charsetService?.charset !== undefined) return undefined;
  if (handler._coreService?.modes?.insertMode !== false || pen === undefined || typeof pen.isAttributeDefault !== 'function') return undefined;
  const { x, y, ybase } = buffer ?? {};
  if (typeof x !== 'number' || typeof y !== 'number' || typeof ybase !== 'number') return undefined;
  const end = x + data.length;
  if (end >= screen.term.cols) return undefined; // the cursor stays on the row, short of the edge (no wrap pending)
  const line = buffer?.lines?.get?.(ybase + y);
  if (typeof line?.getWidth !== 'function') return undefined;
  // A wide character left of the cursor or right after the cells: print blanks its other half.
  if ((x > 0 && line.getWidth(x - 1) === 2) || line.getWidth(end) === 0) return undefined;
  const style = pen.isAttributeDefault() ? '' : cellSgr(pen as CellStyle);
  return { x, y, chars: data, style };
}
