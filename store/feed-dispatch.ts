/**
 * The feed panes' commands (vpane_*) against the board, by docs/spec.md, "The vpane protocol": every op refreshes
 * its pane's lease; a write's `closed` lists its panes that are gone, and `cols` each written pane's width for the
 * client's word wrap.
 */
import type { CommandOf } from '../src/core/protocol/commands.js';
import { NoSuchPanelError, RequestError } from '../src/core/errors.js';
import { assertNever } from '../src/core/never.js';
import type { PanelState } from '../src/core/panel/panel-state.js';
import type { Board, PanelView } from './board.js';

/** One row of vpane_list (docs/spec.md, "The vpane protocol"). */
export interface VpaneListItem {
  readonly id: number;
  readonly state: PanelState;
  readonly header: string;
  readonly cols: number;
  readonly rows: number;
  readonly closing: boolean;
}

/** What each feed command answers with in `data`. */
export interface FeedReplyData {
  vpane_open: { readonly id: number; readonly cols: number; readonly rows: number };
  vpane_write: { readonly closed: readonly number[]; readonly cols: Readonly<Record<string, number>> };
  vpane_close: null;
  vpane_list: readonly VpaneListItem[];
}

type FeedCommand = CommandOf<keyof FeedReplyData>;

/** Carries out one feed command at `now`. */
export function feedCommand(command: FeedCommand, board: Board, now: number): FeedReplyData[keyof FeedReplyData] {
  switch (command.cmd) {
    case 'vpane_open':
      return open(command, board, now);
    case 'vpane_write':
      return write(command, board, now);
    case 'vpane_close': {
      feedPane(board, command.pane);
      board.getState().close(command.pane, now);
      return null;
    }
    case 'vpane_list':
      return board
        .getState()
        .panels.filter((p) => p.kind === 'feed')
        .map((p) => ({ id: p.id, state: p.state, header: p.header, cols: p.cols, rows: p.rows, closing: p.closing }));
    default:
      return assertNever(command);
  }
}

/** Opens a feed pane; its size is the client's to wrap words to. */
function open(command: CommandOf<'vpane_open'>, board: Board, now: number): FeedReplyData['vpane_open'] {
  const label = command.label ?? command.header?.trim() ?? 'feed pane';
  const id = board.getState().open(
    {
      kind: 'feed',
      label,
      ...(command.header === undefined ? {} : { header: command.header }),
      ...(command.state === undefined ? {} : { state: command.state }),
      ...(command.main_percent === undefined ? {} : { mainPercent: command.main_percent }),
    },
    now,
  );
  const view = viewOf(board, id);
  return { id, cols: view?.cols ?? 0, rows: view?.rows ?? 0 };
}

/** Applies a write's ops in order; a pane that no longer exists is reported, not refused. */
function write(command: CommandOf<'vpane_write'>, board: Board, now: number): FeedReplyData['vpane_write'] {
  const s = board.getState();
  const closed: number[] = [];
  const written: number[] = [];
  for (const op of command.ops) {
    if (!isFeedPane(board, op.pane)) {
      if (!closed.includes(op.pane)) closed.push(op.pane);
      continue;
    }
    if (op.data !== undefined && op.data !== '') s.write(op.pane, op.data, now);
    s.feed(
      op.pane,
      {
        ...(op.header === undefined ? {} : { header: op.header }),
        ...(op.state === undefined ? {} : { state: op.state }),
        ...(op.done === undefined ? {} : { done: op.done }),
        ...(op.linger === undefined ? {} : { linger: op.linger }),
      },
      now,
    );
    if (!written.includes(op.pane)) written.push(op.pane);
  }
  const cols: Record<string, number> = {};
  for (const id of written) {
    const view = viewOf(board, id);
    if (view) cols[String(id)] = view.cols;
  }
  return { closed, cols };
}

function viewOf(board: Board, id: number): PanelView | undefined {
  return board.getState().panels.find((p) => p.id === id);
}

/** A feed pane still on the board (not closed, not gone). */
function isFeedPane(board: Board, id: number): boolean {
  return viewOf(board, id)?.kind === 'feed';
}

function feedPane(board: Board, id: number): void {
  const view = viewOf(board, id);
  if (!view) throw new NoSuchPanelError(id);
  if (view.kind !== 'feed') throw new RequestError(`pane ${id} is an agent panel, not a feed pane; use cancel`);
}
