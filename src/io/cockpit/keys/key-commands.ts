/**
 * What the key router does with a key's command besides carrying it out: a refusal stays on the status line until the
 * next key (tmux's display-message), so no key fails silently; prefix + x on a running agent asks first, as tmux's
 * kill-pane (docs/cockpit.md, "Zoom and focus"); the help's scroll keys move it within its length.
 */
import type { Command } from '../../../core/protocol/commands.js';
import { helpView } from '../../../core/input/help-text.js';
import { keyLength } from '../../../core/input/keys.js';
import { areaRows } from '../../../core/panel/layout.js';
import { isLive } from '../../../core/panel/panel-state.js';
import { sanitizeLine } from '../../../core/text/sanitize.js';
import type { Board } from '../../../../store/board.js';
import type { Reply } from '../../../../store/dispatch.js';
import type { PrefixSign } from '../../../../store/prefix-sign.js';

/** What the key commands act on. */
export interface KeyCommandsOptions {
  readonly board: Board;
  readonly sign?: PrefixSign;
  dispatch(command: Command): Promise<Reply> | void;
  /** The status line changed: draw soon. */
  changed(): void;
}

/** The key commands of one router. */
export interface KeyCommands {
  /** Carries out a key's command; a refusal is shown until the next key. */
  run(command: Command): void;
  /** A command from the prefix: `close` of a running agent's panel asks first. */
  command(command: Command): void;
  /** Whether a question waits for its key. */
  readonly asking: boolean;
  /** Typed keys while a question waits: the first answers it; returns the keys after it. */
  answer(data: string): string;
  /** Another command came: the question lapses, unanswered. */
  lapse(): void;
  /** A new chunk of keys: the last refusal has been seen. */
  seen(): void;
  /** Scrolls the open help by lines or pages, within its length at the board's size. */
  helpScroll(prefix: string, by: { readonly lines?: number; readonly pages?: number }): void;
}

/** Makes the key commands of a router. */
export function keyCommands(options: KeyCommandsOptions): KeyCommands {
  const { board, sign, changed } = options;
  let confirming: number | undefined;
  const ask = (pane: number | undefined, question?: string): void => {
    confirming = pane;
    sign?.getState().asks(question);
    changed();
  };
  const run = (command: Command): void => {
    const reply = options.dispatch(command);
    if (!reply) return;
    void reply.then((r) => {
      if (r.ok) return;
      sign?.getState().say(r.error);
      changed();
    });
  };
  return {
    run,
    command(command) {
      const s = board.getState();
      const focused = command.cmd === 'close' && command.pane === undefined && typeof s.focus === 'number' ? s.focus : undefined;
      const view = s.panels.find((p) => p.id === focused);
      if (!view || view.kind !== 'agent' || !isLive(view.state)) return run(command);
      ask(view.id, `cancel #${view.id} ${[...sanitizeLine(view.label)].slice(0, 24).join('')}? y cancels it, any other key keeps it`);
    },
    get asking() {
      return confirming !== undefined;
    },
    answer(data) {
      const pane = confirming;
      const len = keyLength(data, 0) || data.length;
      ask(undefined);
      if (pane !== undefined && data.slice(0, len) === 'y') run({ cmd: 'close', pane });
      return data.slice(len);
    },
    lapse() {
      if (confirming !== undefined) ask(undefined);
    },
    seen() {
      if (sign?.getState().message === undefined) return;
      sign.getState().say(undefined);
      changed();
    },
    helpScroll(prefix, by) {
      const s = board.getState();
      const rows = areaRows(s.rows, s.statusLine);
      const { maxTop } = helpView(prefix, s.cols, rows, 0);
      const step = (by.lines ?? 0) + (by.pages ?? 0) * Math.max(1, rows - 2);
      s.helpScroll(Math.min(maxTop, Math.max(0, s.helpTop + step)));
    },
  };
}
