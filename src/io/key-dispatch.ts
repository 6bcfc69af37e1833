/** The keyboard's commands carried out on the board, the default dispatcher of the cockpit. */
import type { Command } from '../core/commands.js';
import type { RunningCockpit } from './cockpit.js';

/** Carries out a keyboard command directly on the board (store/dispatch.ts can be injected instead). */
export function boardDispatch(command: Command, cockpit: RunningCockpit): void {
  const s = cockpit.board.getState();
  switch (command.cmd) {
    case 'focus':
      s.focusMove(command.to);
      return;
    case 'close': {
      const pane = command.pane ?? s.focus;
      if (typeof pane === 'number') s.closeByUser(pane, cockpit.now());
      return;
    }
    case 'zoom':
      s.zoomToggle();
      return;
    case 'scroll':
      s.scroll(command.pages);
      return;
    case 'help':
      s.helpToggle();
      return;
    default:
      return; // not the keyboard's: the socket's dispatcher carries those out
  }
}

