/**
 * Where each key of the cockpit goes (the real key path, shared by the
 * cockpit and its tests): the KeyScanner splits a raw stdin chunk into
 * commands (to the one dispatcher), mention-prompt keys (to the prompt) and
 * bytes for the main pane. While the prompt is open nothing reaches the
 * pane; while it is closed the prompt takes nothing.
 */
import type { Command } from '../../core/protocol/commands.js';
import type { KeyScanner } from '../../core/input/keys.js';
import { MouseRouter, type MouseView } from '../../core/input/mouse-route.js';
import { WHEEL_LINES } from '../../core/input/mouse.js';
import { SCROLL_DOWN, SCROLL_UP } from '../../core/input/copy-mode.js';
import type { Board } from '../../../store/board.js';
import type { MentionController } from './mentions.js';

/** What the router hands keys to. */
export interface KeyRoute {
  readonly keys: KeyScanner;
  readonly board: Board;
  readonly mentions: MentionController;
  dispatch(command: Command): void;
  /** Bytes typed for the main pane (only while it has focus). */
  toMain(data: string): void;
  /**
   * The main program's side of the mouse: what it asked for and where its
   * reports go (src/core/input/mouse-route.ts). Without it the main program
   * never gets the mouse; the wheel and clicks are tai's. Nothing is routed
   * while the prompt is open.
   */
  readonly mainMouse?: { main(): MouseView['main']; send(data: string): void };
  /** Copy mode (src/io/cockpit/copy-view.ts); without it the copy key does nothing. */
  readonly copy?: { start(): boolean; key(key: string): boolean };
}


/** Returns the stdin listener; the scanner leaves prompt mode whenever the prompt closes. */
export function routeKeys(route: KeyRoute): (chunk: string | Buffer) => void {
  const { keys, board, mentions } = route;
  const mouse = new MouseRouter();
  const none: MouseView['main'] = { tracking: 'none', encoding: 'x10' };
  mentions.prompt.subscribe((p) => {
    if (p.line === null) keys.promptClosed();
  });
  return (chunk) => {
    if (!board.getState().help) keys.helpClosed(); // closed by other means (the socket)
    for (const action of keys.push(typeof chunk === 'string' ? chunk : chunk.toString('utf8'))) {
      switch (action.kind) {
        case 'mention':
          mentions.open();
          continue;
        case 'prompt':
          void mentions.key(action.key, action.paste);
          continue;
        case 'command':
          route.dispatch(action.command);
          continue;
        case 'copy':
          if (!route.copy?.start()) keys.copyClosed();
          continue;
        case 'copy-key':
          if (!route.copy?.key(action.key)) keys.copyClosed();
          continue;
        case 'mouse': {
          if (mentions.prompt.getState().line !== null) continue;
          if (keys.copying) {
            // In copy mode the wheel moves its cursor; clicks are not its business.
            const e = action.event;
            if (e.button !== 64 && e.button !== 65) continue;
            for (let n = 0; n < WHEEL_LINES; n++) if (!route.copy?.key(e.button === 64 ? SCROLL_UP : SCROLL_DOWN)) keys.copyClosed();
            continue;
          }
          const s = board.getState();
          const view = { layout: s.layout, focus: s.focus, scrollback: s.scrollback, help: s.help, main: route.mainMouse?.main() ?? none };
          for (const o of mouse.route(action.event, view)) {
            if (o.kind === 'command') route.dispatch(o.command);
            else route.mainMouse?.send(o.data);
          }
          continue;
        }
        case 'input': {
          const s = board.getState();
          if (s.help) {
            route.dispatch({ cmd: 'help' }); // opened by other means: any key closes it too
            continue;
          }
          if (s.focus !== 'main') { if (action.data === 'q') route.dispatch({ cmd: 'view_close' }); continue; } // keys typed into a panel are dropped (steering is later work); `q` closes a read-only view (docs/lanes.md)
          route.toMain(action.data);
        }
      }
    }
  };
}
