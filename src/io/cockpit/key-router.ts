/**
 * Where each key of the cockpit goes (the real key path, shared by the
 * cockpit and its tests): the KeyScanner splits a raw stdin chunk into
 * commands (to the one dispatcher), mention-prompt keys (to the prompt) and
 * bytes for the main pane. While the prompt is open nothing reaches the
 * pane; while it is closed the prompt takes nothing.
 */
import type { Command } from '../../core/protocol/commands.js';
import type { KeyScanner } from '../../core/input/keys.js';
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
  /** Bytes typed into a focused panel: answers its question, or steers its agent (panel-keys.ts); omitted, dropped. */
  toPanel?(id: number, data: string): void;
}

/** Returns the stdin listener; the scanner leaves prompt mode whenever the prompt closes. */
export function routeKeys(route: KeyRoute): (chunk: string | Buffer) => void {
  const { keys, board, mentions } = route;
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
        case 'input': {
          const s = board.getState();
          if (s.help) {
            route.dispatch({ cmd: 'help' }); // opened by other means: any key closes it too
            continue;
          }
          if (s.focus !== 'main') route.toPanel?.(s.focus, action.data);
          else route.toMain(action.data);
        }
      }
    }
  };
}
