/**
 * The folder `src/io/cockpit/keys/`: what the cockpit does with keys and the mouse besides passing them on (this router,
 * mentions, panel keys, steering, copy mode). This file is the real key path, shared by the cockpit and its tests: the
 * KeyScanner splits a chunk into commands, prompt keys, list keys and main-pane bytes; while the prompt or the list is
 * open nothing reaches the pane. A prefix with no key lapses after PREFIX_TIMEOUT_MS, as tmux's does.
 */
import type { Command } from '../../../core/protocol/commands.js';
import type { Reply } from '../../../../store/dispatch.js';
import { MouseRouter, type MouseView } from '../../../core/input/mouse-route.js';
import { WHEEL_LINES, type MouseEvent } from '../../../core/input/mouse.js';
import { SCROLL_DOWN, SCROLL_UP } from '../../../core/input/copy-mode.js';
import { keyLength, PREFIX_TIMEOUT_MS, type KeyAction, type KeyScanner } from '../../../core/input/keys.js';
import { listMove } from '../../../core/input/list-keys.js';
import type { Board } from '../../../../store/board.js';
import { selectedIndex, type AgentList } from '../../../../store/agent-list.js';
import type { PrefixSign } from '../../../../store/prefix-sign.js';
import { KEPT_TRANSCRIPTS_MAX } from '../../../../store/board.js';
import { after, type Cancel } from '../../after.js';
import type { MentionController } from './mentions.js';
import { keyCommands, type KeyCommands } from './key-commands.js';
import { answerTool } from './panel-keys.js';

/** What the router hands keys to. */
export interface KeyRoute {
  readonly keys: KeyScanner;
  readonly board: Board;
  readonly mentions: MentionController;
  /** The agent list (prefix + w); absent: the list key does nothing. */
  readonly list?: AgentList;
  /** The status line's sign while the prefix waits for its key. */
  readonly sign?: PrefixSign;
  /** Carries out a command; a refusal in the reply is shown on the status line until the next key. */
  dispatch(command: Command): Promise<Reply> | void;
  /** Bytes typed for the main pane (only while it has focus). */
  toMain(data: string): void;
  /**
   * The main program's side of the mouse (src/core/input/mouse-route.ts); without it the wheel and clicks are all tai's.
   * Nothing is routed while the prompt is open.
   */
  readonly mainMouse?: { main(): MouseView['main']; send(data: string): void };
  /** Copy mode (src/io/cockpit/keys/copy-view.ts); without it the copy key does nothing. */
  readonly copy?: { start(): boolean; key(key: string): boolean };
  /** Something the router shows changed (the prefix's sign, the list): draw soon. */
  changed?(): void;
  /** The time, for the list's Enter (the board's reveal takes `now`). */
  now?(): number;
  /** Runs `fn` after `ms`; the prefix's lapse. Default a real timer (tests pass their own clock). */
  after?(ms: number, fn: () => void): Cancel;
  /** Bytes typed into a focused panel: answers its question, or steers its agent (panel-keys.ts); omitted, dropped. */
  toPanel?(id: number, data: string): void;
}


/** The router's stdin listener, with its straight way for a plain key. */
export interface KeyListener {
  (chunk: string | Buffer): void;
  /**
   * `text` written to the main pane at once when it is plain keys the full way would hand it whole (normal mode, nothing
   * carried or open, the main pane focused); false, nothing done, when the listener must take it (docs/performance.md,
   * "Echo ahead").
   */
  straight(text: string): boolean;
}

/** Returns the stdin listener; the scanner leaves prompt mode whenever the prompt closes. */
export function routeKeys(route: KeyRoute): KeyListener {
  const { keys, board, mentions, list } = route;
  const mouse = new MouseRouter();
  const changed = route.changed ?? (() => {});
  const now = route.now ?? Date.now;
  const commands = keyCommands({ board, ...(route.sign === undefined ? {} : { sign: route.sign }), dispatch: (c) => route.dispatch(c), changed });
  mentions.prompt.subscribe((p) => {
    if (p.line === null) keys.promptClosed();
  });

  const watchPrefix = prefixWatch(route, changed);

  const listKey = (l: AgentList, key: string): void => openListKey(board, l, key, now(), changed);

  /** Keys for a pane: an answer to the question asked, the open list's, or the focused pane's. */
  const input = (text: string): void => {
    const data = commands.asking ? commands.answer(text) : text;
    if (data === '') return;
    let i = 0;
    // The open list holds the keyboard; the keys after the one that closed it (one chunk on a loaded machine) go on.
    while (i < data.length && list?.getState().open && !board.getState().help) {
      const len = keyLength(data, i) || data.length - i;
      listKey(list, data.slice(i, i + len));
      i += len;
    }
    if (i < data.length) typed(route, commands, data.slice(i));
  };

  const listener = (chunk: string | Buffer): void => {
    if (!board.getState().help) keys.helpClosed(); // closed by other means (the socket)
    commands.seen();
    const wasPending = keys.awaiting;
    const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
    // A plain key skips the scan, which would hand it on whole: a key's way to the pty is its echo's (docs/performance.md, "Echo ahead").
    if (keys.passes(text)) input(text);
    else routeActions(keys.push(text));
    watchPrefix(wasPending);
  };
  return Object.assign(listener, { straight: straightWay(route, commands) });

  function routeActions(actions: readonly KeyAction[]): void {
    for (const action of actions) {
      if (action.kind !== 'input' && action.kind !== 'mouse') commands.lapse(); // another command: a question lapses
      switch (action.kind) {
        case 'mention':
          list?.getState().close();
          mentions.open();
          continue;
        case 'list':
          if (list) toggleList(list, board, changed);
          continue;
        case 'prompt':
          void mentions.key(action.key, action.paste);
          continue;
        case 'help-scroll':
          commands.helpScroll(keys.prefix, action);
          continue;
        case 'command':
          commands.command(action.command);
          continue;
        case 'copy':
        case 'copy-key':
          if (!(action.kind === 'copy' ? route.copy?.start() : route.copy?.key(action.key))) keys.copyClosed();
          continue;
        case 'mouse':
          if (mentions.prompt.getState().line === null) routeMouse(route, mouse, commands, action.event);
          continue;
        case 'input':
          input(action.data);
      }
    }
  }
}

/** The listener's way for a plain key, in its order: what it checks first (help, a refusal seen, the prefix) changes nothing then. */
function straightWay(route: KeyRoute, commands: KeyCommands): (text: string) => boolean {
  const { keys, board, list } = route;
  return (text) => {
    if (!keys.passes(text) || commands.asking || list?.getState().open === true) return false;
    const s = board.getState();
    if (s.help || s.focus !== 'main') return false;
    route.toMain(text);
    commands.seen(); // after the write: a refusal's line can wait, the key cannot
    return true;
  };
}

/** Arms (or disarms) the prefix's lapse after a chunk, and redraws when its sign changed. */
function prefixWatch(route: KeyRoute, changed: () => void): (wasPending: boolean) => void {
  const { keys } = route;
  const later = route.after ?? ((ms: number, fn: () => void) => after(ms, fn, true));
  let lapse: Cancel | undefined;
  return (wasPending) => {
    if (keys.awaiting === wasPending) return;
    lapse?.();
    lapse = undefined;
    if (keys.awaiting) {
      lapse = later(PREFIX_TIMEOUT_MS, () => {
        lapse = undefined;
        if (!keys.prefixTimedOut()) return;
        route.sign?.getState().set(false);
        changed();
      });
    }
    route.sign?.getState().set(keys.awaiting);
    changed();
  };
}

const NO_MOUSE: MouseView['main'] = { tracking: 'none', encoding: 'x10' };

/** One mouse event: copy mode's wheel, else tai's own (focus, scroll) or the main program's. */
function routeMouse(route: KeyRoute, mouse: MouseRouter, commands: ReturnType<typeof keyCommands>, event: MouseEvent): void {
  const { keys, board } = route;
  if (keys.copying) {
    // In copy mode the wheel moves its cursor; clicks are not its business.
    if (event.button !== 64 && event.button !== 65) return;
    for (let n = 0; n < WHEEL_LINES; n++) if (!route.copy?.key(event.button === 64 ? SCROLL_UP : SCROLL_DOWN)) keys.copyClosed();
    return;
  }
  const s = board.getState();
  const view = { layout: s.layout, focus: s.focus, scrollback: s.scrollback, help: s.help, main: route.mainMouse?.main() ?? NO_MOUSE };
  for (const o of mouse.route(event, view)) {
    if (o.kind === 'command') commands.run(o.command);
    else route.mainMouse?.send(o.data);
  }
  keys.scrolledBack(board.getState().scrollback > 0); // the wheel scrolled back: the next key returns first
}

/** Keys typed while neither the prompt nor the list has them: they close the help, else reach the focused pane. */
function typed(route: KeyRoute, commands: ReturnType<typeof keyCommands>, data: string): void {
  const s = route.board.getState();
  if (s.help) {
    commands.run({ cmd: 'help' }); // opened by other means: any key closes it too
  } else if (s.focus !== 'main') {
    // Keys typed into a panel answer its question or open its steering line; `q` closes a read-only view.
    route.toPanel?.(s.focus, data);
    if (data === 'q') commands.run({ cmd: 'view_close' });
  } else {
    route.toMain(data);
  }
}

/** prefix + w: the agent list opens on the focused panel, or closes. */
function toggleList(list: AgentList, board: Board, changed: () => void): void {
  const s = board.getState();
  if (list.getState().open) list.getState().close();
  else list.getState().show(typeof s.focus === 'number' ? s.focus : undefined);
  changed();
}

/** One key for the open agent list: move, open, close, or answer the selected agent's tool. */
function openListKey(board: Board, l: AgentList, key: string, at: number, changed: () => void): void {
  const move = listMove(key);
  if (move === undefined) return;
  const ids = board.getState().status(at).agents.map((a) => a.id);
  switch (move) {
    case 'close':
      l.getState().close();
      break;
    case 'open': {
      const id = ids[selectedIndex(l.getState().selected, ids)];
      if (id === undefined) break;
      if (board.getState().reveal(id, at)) l.getState().close();
      else l.getState().fail(`#${id}: its screen was not kept (only the last ${KEPT_TRANSCRIPTS_MAX} are): tai logs ${id} prints its transcript`);
      break;
    }
    case 'allow-tool':
    case 'reject-tool':
      l.getState().fail(answerTool(board, ids[selectedIndex(l.getState().selected, ids)], move === 'allow-tool' ? 'y' : 'n', at));
      break;
    default:
      l.getState().move(move, ids);
  }
  changed();
}
