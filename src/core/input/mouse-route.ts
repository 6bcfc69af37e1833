/**
 * Where a mouse event goes (tmux's `mouse on`): the wheel scrolls the pane under the pointer, a click focuses it, and a
 * main program that asked for the mouse (vim `mouse=a`, htop) gets the events over the main pane in its own coordinates
 * and encoding; panels and separators stay tai's. A press given to it grabs the mouse: motion and release follow it
 * there even off the main pane (clamped), as a terminal does, so a drag in vim never ends half in tai.
 */
import type { Command } from '../protocol/commands.js';
import { paneAt, type Layout, type PaneId, type Rect } from '../panel/layout.js';
import { encodeMouse, isPress, isWheel, WHEEL_LINES, type MouseEncoding, type MouseEvent, type MouseTracking } from './mouse.js';

/** What the router decides from. */
export interface MouseView {
  readonly layout: Layout;
  readonly focus: PaneId;
  readonly scrollback: number;
  readonly help: boolean;
  /** What the main program asked for on its terminal. */
  readonly main: { readonly tracking: MouseTracking; readonly encoding: MouseEncoding };
}

/** One thing to do for an event, in order. */
export type MouseOutcome = { readonly kind: 'command'; readonly command: Command } | { readonly kind: 'main'; readonly data: string };

/** The mouse's router; one per cockpit, for its grab. */
export class MouseRouter {
  private grab: Rect | null = null;

  /** The outcomes of one event. */
  route(e: MouseEvent, v: MouseView): MouseOutcome[] {
    if (this.grab) {
      const r = this.grab;
      if (e.release) this.grab = null;
      const clamped = { ...e, x: clamp(e.x, r.x, r.x + r.cols - 1), y: clamp(e.y, r.y, r.y + r.rows - 1) };
      return main(encodeMouse(clamped, r.x, r.y, v.main.tracking, v.main.encoding));
    }
    if (v.help) return isPress(e) ? [command({ cmd: 'help' })] : [];
    const at = paneAt(v.layout, e.x, e.y);
    if (!at) return [];
    const focus: MouseOutcome[] = at.id === v.focus ? [] : [command({ cmd: 'focus', to: at.id })];
    // The program's own mouse, unless the user is reading the main pane's scrollback.
    const scrolled = v.focus === 'main' && v.scrollback > 0;
    if (at.id === 'main' && v.main.tracking !== 'none' && !scrolled) {
      if (!isPress(e) && !isWheel(e)) return main(encodeMouse(e, at.rect.x, at.screenTop, v.main.tracking, v.main.encoding));
      if (isPress(e)) this.grab = at.rect;
      return [...focus, ...main(encodeMouse(e, at.rect.x, at.screenTop, v.main.tracking, v.main.encoding))];
    }
    if (isWheel(e)) return [...focus, command({ cmd: 'scroll', lines: e.button === 64 ? -WHEEL_LINES : WHEEL_LINES })];
    return isPress(e) ? focus : [];
  }
}

function command(c: Command): MouseOutcome {
  return { kind: 'command', command: c };
}

function main(data: string): MouseOutcome[] {
  return data === '' ? [] : [{ kind: 'main', data }];
}

function clamp(n: number, lo: number, hi: number): number {
  return Math.min(Math.max(n, lo), hi);
}
