/**
 * The structural lines of a panel (docs/spec.md, "Formatter and sanitizing"): opening, tool, plan, note, error,
 * question and footer lines, and raw lines, each for one width. Their agent text is sanitized one-shot, its SGR removed
 * (our colour is the line's meaning) and clipped by display width, never inside a grapheme. The stream is formatter.ts's.
 */
import type { AgentEvent } from '../events.js';
import { assertNever } from '../never.js';
import {
  ORCH_NOTE_MAX,
  ORCH_SUMMARY_MAX,
  ORCH_TASK_SHOW_MAX,
  ORCH_TOOL_ARGS_MAX,
  ORCH_TOOL_RESULT_COLS,
  ORCH_TOOL_RESULT_LINES,
} from '../policy.js';
import { sanitize, sanitizeLine, stripSgr } from '../text/sanitize.js';
import { clip, graphemes, graphemeWidth, TAB_STOP, WordWrap } from '../text/wrap.js';
import { FORMAT_SLICE } from './format-backlog.js';
import type { SourceCall } from './format-source.js';
import { formatElapsed } from './header.js';
import type { FinalState } from './panel-state.js';
import stringWidth from 'string-width';
import { CYAN, DIM, GREEN, GREY, MAGENTA, ORANGE, RED, RESET, YELLOW } from '../sgr.js';

export const CRLF = '\r\n';
export { DIM, RESET };

/** How each final state is announced in the footer. */
const FOOTER: Readonly<Record<FinalState, { readonly color: string; readonly text: string }>> = {
  done: { color: GREEN, text: '✓ done' },
  failed: { color: RED, text: '✗ failed' },
  timeout: { color: ORANGE, text: '⏱ timeout' },
  cancelled: { color: GREY, text: '⊘ cancelled' },
};

/** Structural events: those a line of their own shows. */
export type StructuralEvent = Exclude<AgentEvent, { type: 'text' | 'thought' | 'usage' | 'session' }>;

/** The wrap width of a pane: its columns minus one (docs/spec.md, "Formatter and sanitizing"). */
export function lineWidth(cols: number): number {
  return Math.max(1, Math.floor(cols) - 1);
}

/** The dim `▸ task` line and a blank line. */
export function openingLines(task: string, width: number): string {
  const shown = clip(sanitizeLine(task).trim(), width - 2, ORCH_TASK_SHOW_MAX);
  return DIM + '▸ ' + shown + RESET + CRLF + CRLF;
}

/** The lines of a structural event; `chars`: a kept tool result's whole size (its text kept only as far as it is shown). */
export function eventLines(ev: StructuralEvent, width: number, chars?: number): string {
  switch (ev.type) {
    case 'tool_start':
      return toolStart(ev.name, ev.args, width);
    case 'tool_end':
      return toolEnd(ev.result, ev.failed, width, chars);
    case 'plan':
      return plan(ev.entries, width);
    case 'note':
      return block(YELLOW + '· ' + clip(sanitizeLine(headOf(ev.text)).trim(), Number.POSITIVE_INFINITY, ORCH_NOTE_MAX) + RESET, width);
    case 'error':
      return block(RED + '✗ ' + clip(sanitizeLine(headOf(ev.text)).trim(), Number.POSITIVE_INFINITY, ORCH_NOTE_MAX) + RESET, width);
    default:
      return assertNever(ev);
  }
}

/** Rows fitted to the width (a question's block), each on a line of its own; one fitted to an earlier, wider width is wrapped by word. */
export function rowLines(rows: readonly string[], width: number): string {
  return rows.map((r) => (stringWidth(r) <= width ? r + RESET + CRLF : block(r + RESET, width))).join('');
}

/** The coloured state, the elapsed time and the summary (the caller puts the blank line before it). */
export function footerLine(state: FinalState, elapsedMs: number, summary: string, width: number): string {
  const f = FOOTER[state];
  let line = f.color + f.text + RESET + ' · ' + formatElapsed(elapsedMs);
  const shown = clip(sanitizeLine(summary).trim(), Number.POSITIVE_INFINITY, ORCH_SUMMARY_MAX);
  if (shown !== '') line += ' · ' + shown;
  return block(line, width);
}

/** Text only of printable characters, tabs, line ends and SGR: lines that can be wrapped by word without changing what they mean. */
const PLAIN_LINES = /^(?:\x1b\[[0-9;:]*m|[^\x00-\x08\x0b\x0c\x0e-\x1f\x1b\x7f-\x9f])*$/;

/**
 * Lines written into the panel as they are (the board's `write`): whole lines of plain text are wrapped by word with
 * their SGR kept, so they read at any width; anything else goes unchanged, since only its writer knows its shape.
 */
export function rawLines(text: string, width: number): string | undefined {
  if (!text.endsWith('\n') || !PLAIN_LINES.test(text)) return undefined;
  const wrap = new WordWrap(width);
  return wrap.push(text) + wrap.release();
}

/** Word-wraps one structural paragraph on its own and ends its line. */
export function block(text: string, width: number): string {
  const wrap = new WordWrap(width);
  return wrap.push(text) + wrap.release() + wrap.newline();
}

/** Cyan `⏺ name` and dim `(arguments)` on one line. */
function toolStart(rawName: string, rawArgs: string, width: number): string {
  const name = clip(sanitizeLine(headOf(rawName)).trim(), width - 2);
  let line = CYAN + '⏺ ' + name + RESET;
  const room = width - 2 - stringWidth(name) - 2;
  const args = sanitizeLine(headOf(rawArgs)).trim();
  if (args !== '' && room >= 1) line += DIM + '(' + clip(args, room, ORCH_TOOL_ARGS_MAX) + ')' + RESET;
  return line + CRLF;
}

/** `⎿` and the first non-empty lines of the result, then its size; red when the tool failed. */
function toolEnd(raw: string, failed: boolean, width: number, chars?: number): string {
  const color = failed ? RED : DIM;
  const cols = Math.min(ORCH_TOOL_RESULT_COLS, width - 2);
  const shown: string[] = [];
  for (const line of stripSgr(sanitize(headOf(raw))).split('\n')) {
    if (shown.length === ORCH_TOOL_RESULT_LINES) break;
    const text = expandTabs(line).trimEnd();
    if (text.trim() !== '') shown.push(clip(text, cols));
  }
  if (shown.length === 0) shown.push('(no output)');
  const n = chars ?? codePoints(raw);
  const size = ` · ${n} ${n === 1 ? 'char' : 'chars'}`;
  const last = shown.length - 1;
  // The size joins the last line when it fits, else it takes a line of its own.
  if (stringWidth(shown[last] ?? '') + stringWidth(size) <= width - 2) shown[last] += size;
  else shown.push(size.slice(1));
  return shown.map((text, k) => color + (k === 0 ? '⎿ ' : '  ') + text + RESET + CRLF).join('');
}

/** Magenta `▤` and one clipped line per plan entry. */
function plan(entries: readonly string[], width: number): string {
  const mark = MAGENTA + '▤' + RESET;
  if (entries.length === 0) return mark + CRLF;
  return entries.map((e, k) => (k === 0 ? mark + ' ' : '  ') + clip(sanitizeLine(headOf(e)).trim(), width - 2) + CRLF).join('');
}

/**
 * The start of a text shown clipped to a line or a few (a note, a tool's
 * arguments and result): what lies past FORMAT_SLICE units is never shown, so
 * it is not walked either.
 */
function headOf(text: string): string {
  return text.length > FORMAT_SLICE ? text.slice(0, FORMAT_SLICE) : text;
}

/** A structural event as the source keeps it: its texts only as far as they are ever shown (headOf), a tool result's size aside. */
export function keptEvent(ev: StructuralEvent): SourceCall {
  switch (ev.type) {
    case 'tool_start':
      return { type: 'event', event: { ...ev, name: headOf(ev.name), args: headOf(ev.args) } };
    case 'tool_end':
      return { type: 'event', event: { ...ev, result: headOf(ev.result) }, chars: codePoints(ev.result) };
    case 'plan':
      return { type: 'event', event: { ...ev, entries: ev.entries.map(headOf) } };
    case 'note':
    case 'error':
      return { type: 'event', event: { ...ev, text: headOf(ev.text) } };
    default:
      return assertNever(ev);
  }
}

/** The units of agent text an event makes the formatter walk. */
export function unitsOf(ev: AgentEvent): number {
  const head = (t: string): number => Math.min(t.length, FORMAT_SLICE);
  switch (ev.type) {
    case 'text':
    case 'thought':
      return ev.text.length;
    case 'note':
    case 'error':
      return head(ev.text);
    case 'tool_start':
      return head(ev.name) + head(ev.args);
    case 'tool_end':
      return head(ev.result);
    case 'plan':
      return ev.entries.reduce((n, e) => n + head(e), 0);
    case 'usage':
    case 'session':
      return 0;
    default:
      return assertNever(ev);
  }
}

function codePoints(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xdc00 || c > 0xdfff) n++;
  }
  return n;
}

/** Tabs to spaces at the next multiple of TAB_STOP, counted in display columns. */
function expandTabs(line: string): string {
  if (!line.includes('\t')) return line;
  let out = '';
  let col = 0;
  for (const g of graphemes(line)) {
    if (g === '\t') {
      const pad = TAB_STOP - (col % TAB_STOP);
      out += ' '.repeat(pad);
      col += pad;
    } else {
      out += g;
      col += graphemeWidth(g);
    }
  }
  return out;
}
