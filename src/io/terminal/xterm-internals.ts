/**
 * Every reach of tai into @xterm/headless's internals (its version pinned in package.json), each behind a function
 * whose fallback is the public API or nothing; TAI_INTERNALS=0 (node-internals.ts) takes every fallback. The canary
 * test (test/io/terminal/xterm-internals.test.ts) names the version when a shape is gone.
 */
import type xterm from '@xterm/headless';
import { internalsOn } from '../node-internals.js';

type Terminal = InstanceType<typeof xterm.Terminal>;
type BufferLine = NonNullable<ReturnType<Terminal['buffer']['active']['getLine']>>;

/** xterm's own line object: its cells as 3 words each in `_data`, combined characters in `_combined`. */
export type XtermLine = object;

/** A buffer's line objects by absolute index (scrollback included). */
export interface XtermLines {
  get(i: number): XtermLine | undefined;
}

/** The parts of xterm.js's input handler read to know what `print` will do. */
interface HandlerShape {
  readonly _parser?: { readonly currentState?: unknown };
  readonly _charsetService?: { readonly charset?: unknown };
  readonly _coreService?: { readonly modes?: { readonly insertMode?: unknown } };
  readonly _curAttrData?: { isAttributeDefault?: unknown };
  readonly _activeBuffer?: {
    readonly x?: unknown;
    readonly y?: unknown;
    readonly ybase?: unknown;
    readonly lines?: { get?(i: number): { getWidth?(x: number): number } | undefined };
  };
}

interface CoreShape {
  readonly _writeBuffer?: { readonly handleUserInput?: () => void };
  readonly _inputHandler?: HandlerShape & { readonly onRequestRefreshRows?: (fn: (range: { start: number; end: number } | undefined) => void) => unknown };
  readonly buffer?: { readonly scrollTop?: unknown; readonly scrollBottom?: unknown; readonly lines?: { readonly get?: unknown } };
}

/** Each terminal's core, looked up once: the switch is read from the environment when the terminal is first reached. */
const cores = new WeakMap<Terminal, CoreShape | null>();

function coreOf(term: Terminal): CoreShape | undefined {
  let core = cores.get(term);
  if (core === undefined) {
    core = (internalsOn() ? (term as unknown as { _core?: CoreShape })._core : undefined) ?? null;
    cores.set(term, core);
  }
  return core ?? undefined;
}

/**
 * Makes the terminal parse its next write at once, in the caller's turn, as
 * it does after user input (WriteBuffer.handleUserInput): call it before each
 * write. Undefined (the write is parsed on xterm.js's timer) without it.
 */
export function parseNextAtOnce(term: Terminal): (() => void) | undefined {
  const buffer = coreOf(term)?._writeBuffer;
  const handle = buffer?.handleUserInput;
  return typeof handle === 'function' ? () => handle.call(buffer) : undefined;
}

/** Whether the active buffer has no scroll region (DECSTBM: the whole screen scrolls); false when unknown. */
export function wholeScreenScrolls(term: Terminal): boolean {
  const buf = coreOf(term)?.buffer;
  return buf?.scrollTop === 0 && buf.scrollBottom === term.rows - 1;
}

/**
 * Calls `fn` with the viewport rows each parse touched (the renderer's
 * `onRequestRefreshRows`; undefined: all of them); false, calling nothing,
 * without it.
 */
export function onRowsWritten(term: Terminal, fn: (range: { start: number; end: number } | undefined) => void): boolean {
  const handler = coreOf(term)?._inputHandler;
  if (typeof handler?.onRequestRefreshRows !== 'function') return false;
  handler.onRequestRefreshRows(fn);
  return true;
}

/** The active buffer's line objects, read without making an API view per row; undefined without them. */
export function activeLines(term: Terminal): XtermLines | undefined {
  const lines = coreOf(term)?.buffer?.lines;
  return typeof lines?.get === 'function' ? (lines as XtermLines) : undefined;
}

/** activeLines for one terminal, its core found once: a parse asks at each write, and a look reads the environment. */
export function activeLinesOf(term: Terminal): (() => XtermLines | undefined) | undefined {
  const core = coreOf(term);
  if (core === undefined) return undefined;
  return () => {
    const lines = core.buffer?.lines;
    return typeof lines?.get === 'function' ? (lines as XtermLines) : undefined;
  };
}

/** The line object behind an API view of a line (`_line`); undefined without it. */
export function lineBehind(view: BufferLine | undefined): XtermLine | undefined {
  if (view === undefined || !internalsOn()) return undefined;
  const line = (view as unknown as { _line?: unknown })._line;
  return typeof line === 'object' && line !== null ? line : undefined;
}

/** A line's cells as words (content, foreground, background per cell), undefined when unknown or combined characters make them incomplete. */
export function lineWords(line: XtermLine): Uint32Array | undefined {
  const inner = line as { _data?: unknown; _combined?: Readonly<Record<number, string>> };
  const data = inner._data;
  if (!(data instanceof Uint32Array)) return undefined;
  for (const _ in inner._combined ?? {}) return undefined;
  return data;
}

/** xterm.js's parser state for plain text. */
const GROUND = 0;

/** Where printed characters go and their pen (printSpot). */
export interface PrintSpot {
  readonly x: number;
  readonly y: number;
  /** A cell's style methods; undefined: the default style. */
  readonly pen: object | undefined;
}

/**
 * For `term`: where `count` printable ASCII characters written now would go, and their pen, when `print` could do
 * nothing else with them (ground, no mapping charset, no insert mode, room before the edge, no wide neighbour); else
 * undefined. Found once, as it runs on every echo; undefined without the internals.
 */
export function printSpot(term: Terminal): ((count: number) => PrintSpot | undefined) | undefined {
  const handler = coreOf(term)?._inputHandler;
  return handler === undefined ? undefined : (count) => spotOf(term, handler, count);
}

function spotOf(term: Terminal, handler: HandlerShape, count: number): PrintSpot | undefined {
  const buffer = handler._activeBuffer;
  const pen = handler?._curAttrData;
  if (handler._parser?.currentState !== GROUND || handler._charsetService?.charset !== undefined) return undefined;
  if (handler._coreService?.modes?.insertMode !== false || typeof pen?.isAttributeDefault !== 'function') return undefined;
  const { x, y, ybase } = buffer ?? {};
  if (typeof x !== 'number' || typeof y !== 'number' || typeof ybase !== 'number') return undefined;
  const end = x + count;
  if (end >= term.cols) return undefined; // the cursor stays on the row, short of the edge (no wrap pending)
  const line = buffer?.lines?.get?.(ybase + y);
  if (typeof line?.getWidth !== 'function') return undefined;
  if ((x > 0 && line.getWidth(x - 1) === 2) || line.getWidth(end) === 0) return undefined;
  return { x, y, pen: (pen.isAttributeDefault as () => boolean).call(pen) ? undefined : pen };
}

/** The internals above that `term` lacks (the canary test's list): empty when every reach works. */
export function missingInternals(term: Terminal): string[] {
  const missing: string[] = [];
  if (parseNextAtOnce(term) === undefined) missing.push('_core._writeBuffer.handleUserInput');
  const buf = coreOf(term)?.buffer;
  if (typeof buf?.scrollTop !== 'number' || typeof buf.scrollBottom !== 'number') missing.push('_core.buffer.scrollTop/scrollBottom');
  const handler = coreOf(term)?._inputHandler;
  if (typeof handler?.onRequestRefreshRows !== 'function') missing.push('_core._inputHandler.onRequestRefreshRows');
  if (handler?._parser?.currentState !== GROUND || handler._coreService?.modes?.insertMode !== false || typeof handler._curAttrData?.isAttributeDefault !== 'function') {
    missing.push('_core._inputHandler (_parser.currentState, _coreService.modes.insertMode, _curAttrData)');
  }
  if (!('_charsetService' in (handler ?? {})) || typeof handler?._activeBuffer?.x !== 'number' || typeof handler._activeBuffer.lines?.get !== 'function') {
    missing.push('_core._inputHandler (_charsetService, _activeBuffer.x/y/ybase/lines)');
  }
  const lines = activeLines(term);
  if (lines === undefined) missing.push('_core.buffer.lines.get');
  const view = term.buffer.active.getLine(0);
  const line = lineBehind(view);
  if (line === undefined) missing.push('IBufferLine._line');
  else if (lines !== undefined && lines.get(0) !== line) missing.push('_core.buffer.lines.get(i) === getLine(i)._line');
  if (line !== undefined && !((line as { _data?: unknown })._data instanceof Uint32Array)) missing.push('BufferLine._data');
  if (line !== undefined && typeof (line as { _combined?: unknown })._combined !== 'object') missing.push('BufferLine._combined');
  return missing;
}
