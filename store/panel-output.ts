/**
 * A panel's screen and the output on its way there (docs/spec.md, "Formatter and sanitizing"): the screen made at
 * its place's size, fitted to the layout, dropped when the panel leaves; bytes queue in a bounded pending output
 * that a flush drains in one step. After a width change the output is held until the text is formatted again, so
 * the screen goes from the old text to the new at once.
 */
import { messageOf } from '../src/core/errors.js';
import type { AgentEvent } from '../src/core/events.js';
import { Formatter, FORMAT_FLUSH, FORMAT_PIECE } from '../src/core/panel/formatter.js';
import type { Layout, Rect } from '../src/core/panel/layout.js';
import { ORCH_DISPLAY_FAILURES_MAX, ORCH_WORD_RELEASE } from '../src/core/policy.js';
import type { ScreenFactory } from '../src/core/screen.js';
import type { BoardCounters } from './board-types.js';
import type { PanelRecord } from './panel-record.js';

/** Where a drain reports what it cannot throw. */
export interface OutputReport {
  readonly log: (line: string) => void;
  readonly counters: BoardCounters;
}

/** What one drain did. */
export interface Drained {
  /** Some screen received bytes. */
  readonly wrote: boolean;
  /** Display failures in a row, after this drain. */
  readonly failures: number;
  /** Set when the failures reached the limit: why drawing must stop. */
  readonly failed?: string;
}

/**
 * Writes each drawn record's pending output into its screen, a held word released after ORCH_WORD_RELEASE of
 * silence; stops at the failure reaching ORCH_DISPLAY_FAILURES_MAX.
 */
export function drain(records: Iterable<PanelRecord>, now: number, failuresBefore: number, report: OutputReport): Drained {
  let failures = failuresBefore;
  let wrote = false;
  const drawn = [...records].filter((rec) => rec.screen !== undefined);
  formatBacklogs(drawn, report.counters);
  for (const rec of drawn) {
    if (!rec.screen || rec.formatter?.reflowing) continue;
    if (rec.formatter?.holding && !rec.formatter.backlog && now - rec.lastTextAt >= ORCH_WORD_RELEASE) {
      rec.pending.append(rec.formatter.release());
    }
    const chunk = rec.pending.take();
    if (chunk === '') continue;
    try {
      rec.screen.write(chunk);
      report.counters.bytesWritten += chunk.length;
      failures = 0;
      wrote = true;
    } catch (err) {
      report.counters.displayFailures++;
      failures++;
      report.log(`panel ${rec.id}: screen write failed: ${messageOf(err)}`);
      if (failures >= ORCH_DISPLAY_FAILURES_MAX) {
        return { wrote, failures, failed: `display failed ${failures} times: ${messageOf(err)}` };
      }
    }
  }
  return { wrote, failures };
}

/**
 * Formats the formatters' backlogs (a long text an agent printed), FORMAT_FLUSH units a flush shared among them,
 * so no text holds the loop longer than a slice, however long or shaped.
 */
function formatBacklogs(drawn: readonly PanelRecord[], counters: BoardCounters): void {
  const behind = drawn.filter((rec) => rec.formatter?.backlog);
  if (behind.length === 0) return;
  const share = Math.max(FORMAT_PIECE, Math.floor(FORMAT_FLUSH / behind.length));
  for (const rec of behind) {
    const f = rec.formatter;
    if (!f) continue;
    counters.formatted -= f.formatted;
    rec.pending.append(f.drain(share));
    counters.formatted += f.formatted;
  }
}

/** Formats one event into a record's pending output (or its formatter's backlog), counting the units formatted. */
export function formatEvent(rec: PanelRecord, event: AgentEvent, counters: BoardCounters): string {
  const f = rec.formatter;
  if (!f) return '';
  counters.formatted -= f.formatted;
  const out = f.event(event);
  counters.formatted += f.formatted;
  return out;
}

/** True while a drawn record's output waits for its screen, a word is held back or text waits to be formatted. */
export function waiting(records: Iterable<PanelRecord>): boolean {
  for (const rec of records) {
    if (rec.screen && (rec.pending.size > 0 || rec.formatter?.holding || rec.formatter?.backlog)) return true;
  }
  return false;
}

/**
 * Gives a new record its screen at the size of its place (the header row
 * left out) and an agent its formatter; returns why the factory failed, or null.
 */
export function openScreen(rec: PanelRecord, place: Pick<Rect, 'cols' | 'rows'>, create: ScreenFactory): string | null {
  rec.cols = Math.max(1, place.cols);
  rec.rows = Math.max(1, place.rows - 1);
  try {
    rec.screen = create(rec.cols, rec.rows);
  } catch (err) {
    return `display failed: ${messageOf(err)}`;
  }
  if (rec.screen && rec.kind === 'agent') rec.formatter = new Formatter(rec.cols);
  return null;
}

/**
 * Fits each placed record's screen to its rectangle (the window when zoomed) less the header row; true when a
 * panel's text is to be formatted again at a new width (the clock must flush).
 */
export function fitScreens(records: ReadonlyMap<number, PanelRecord>, lay: Layout): boolean {
  let reflow = false;
  const zoomed = lay.zoomed;
  if (zoomed && typeof zoomed.id === 'number' && !lay.panels.some((p) => p.id === zoomed.id)) {
    // A hidden panel zoomed over the window (the agent list opened it): its screen takes the window.
    const rec = records.get(zoomed.id);
    if (rec) reflow = sizeScreen(rec, zoomed.rect.cols, Math.max(1, zoomed.rect.rows - 1)) || reflow;
  }
  for (const place of lay.panels) {
    const rec = records.get(place.id);
    if (!rec) continue;
    const rect = lay.zoomed?.id === place.id ? lay.zoomed.rect : place.rect;
    reflow = sizeScreen(rec, rect.cols, Math.max(1, rect.rows - 1)) || reflow;
  }
  return reflow;
}

/** Fits a record's screen and formatter to a new size; true when its text is formatted again (what was pending is in it). */
function sizeScreen(rec: PanelRecord, cols: number, rows: number): boolean {
  if (rec.cols === cols && rec.rows === rows) return false;
  rec.cols = cols;
  rec.rows = rows;
  rec.screen?.resize(cols, rows);
  if (!rec.screen || !rec.formatter?.setWidth(cols)) return false;
  rec.pending.clear();
  return true;
}

/** Drops a record's screen, formatter and pending output (it leaves the board, or drawing stopped). */
export function dropScreen(rec: PanelRecord): void {
  rec.screen?.dispose();
  rec.screen = undefined;
  rec.formatter = undefined;
  rec.pending.clear();
}
