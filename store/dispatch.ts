/**
 * The one dispatcher (docs/architecture.md, "One command type, two doors"): every Command, from a key or the socket,
 * carried out against the board and the injected AgentService; refusals come back as `{ok: false, error}`, nothing
 * thrown. vpane_* go to feed-dispatch.ts, the inbox's to inbox-dispatch.ts.
 */
import type { AgentResult, AgentService, RecordPage, SpawnResult, SteerResult } from '../src/core/agents/agent-service.js';
import type { AnsweredQuestion, BatchAnswered, QuestionRow } from '../src/core/agents/questions.js';
import type { RuleAdded, RuleRow } from '../src/core/inbox/rules.js';
import { inboxCommand } from './inbox-dispatch.js';
import { feedCommand, type FeedReplyData } from './feed-dispatch.js';
import type { Command, CommandName, CommandOf } from '../src/core/protocol/commands.js';
import { AgentsFullError, NoSuchPanelError, RequestError, messageOf } from '../src/core/errors.js';
import { assertNever } from '../src/core/never.js';
import type { Board } from './board.js';
import type { BoardStatus } from './status.js';

/** One row of vpane_list (store/feed-dispatch.ts; kept here for importers). */
export type { VpaneListItem } from './feed-dispatch.js';

/** What each command answers with in `data`. */
export interface ReplyDataMap extends FeedReplyData {
  spawn: SpawnResult;
  cancel: { readonly id: number; readonly cancelled: true };
  status: BoardStatus;
  poll: AgentResult;
  record_read: RecordPage;
  ask_list: readonly QuestionRow[];
  ask_answer: AnsweredQuestion;
  ask_answer_all: BatchAnswered;
  ask_rule_add: RuleAdded;
  ask_rule_list: readonly RuleRow[];
  ask_rule_drop: RuleRow;
  steer: SteerResult;
  focus: null;
  close: null;
  zoom: null;
  scroll: null;
  help: null;
  detach: null;
  lane_diff: { readonly view: number };
  view_close: { readonly closed: boolean };
}

/** The `data` of a successful reply to command N. */
export type ReplyData<N extends CommandName> = ReplyDataMap[N];

/** A reply line: `{"ok": true, "data": ...}` or `{"ok": false, "error": "..."}`. */
export type Reply<D = unknown> = { readonly ok: true; readonly data: D } | { readonly ok: false; readonly error: string };

/**
 * What the dispatcher asks of the agents beyond the core contract: `currentAttempt` maps a job's id to its
 * running attempt's panel (a retry answers to its first id); lanes open and close diff views. A stand-in for the
 * service (the cockpit's, opened once the database lets it) forwards each of these.
 */
export interface DispatchAgents extends AgentService {
  currentAttempt?(id: number): number | undefined;
  /** Opens a lane panel's diff in a read-only view (src/io/lanes/lane-watch.ts); resolves to the view's pane. */
  openLaneDiff?(pane: number): Promise<number>;
  /** Closes a read-only view; false for any other pane. */
  closeView?(pane: number): boolean;
}

/** What a command is carried out against. */
export interface DispatchContext {
  readonly board: Board;
  /** The time of the request (ms); the dispatcher never reads a clock. */
  readonly now: number;
  /** Starts and polls agents; absent where no runners exist (a test, an embedding). */
  readonly agents?: DispatchAgents;
  /** Where unexpected failures are reported. */
  readonly log?: (line: string) => void;
}

/** Why agent commands are refused when no AgentService was given. */
export const NO_AGENTS = 'agents cannot be started here: this cockpit has no agent runners';

/** Carries out one command and returns its reply; never throws. */
export async function dispatch<C extends Command>(command: C, ctx: DispatchContext): Promise<Reply<ReplyData<C['cmd']>>>;
export async function dispatch(command: Command, ctx: DispatchContext): Promise<Reply> {
  try {
    return { ok: true, data: await carryOut(command, ctx) };
  } catch (err) {
    if (err instanceof RequestError || err instanceof AgentsFullError) return { ok: false, error: err.message };
    const message = messageOf(err);
    ctx.log?.(`dispatch ${command.cmd} failed: ${message}`);
    return { ok: false, error: `internal error: ${message}` };
  }
}

async function carryOut(command: Command, ctx: DispatchContext): Promise<ReplyData<CommandName>> {
  const { board, now } = ctx;
  const s = board.getState();
  switch (command.cmd) {
    case 'vpane_open':
    case 'vpane_write':
    case 'vpane_close':
    case 'vpane_list':
      return feedCommand(command, board, now);
    case 'spawn':
      return agents(ctx).spawn(command, now);
    case 'cancel':
      return cancel(command, ctx);
    case 'status':
      return s.status(now);
    case 'poll':
      return poll(command, ctx);
    case 'record_read':
      return readRecord(command, ctx);
    case 'ask_list':
      return s.questions(now);
    case 'ask_answer':
      return s.answer(command.qid, command.option, command.by ?? 'tai ask', now);
    case 'ask_answer_all':
    case 'ask_rule_add':
    case 'ask_rule_list':
    case 'ask_rule_drop':
      return inboxCommand(command, s, now);
    case 'steer': {
      const agentService = agents(ctx);
      if (!agentService.steer) throw new RequestError(`agent ${command.id} cannot be steered here`);
      return agentService.steer(command.id, command.text);
    }
    case 'focus':
      return focus(command, ctx);
    case 'close': {
      const pane = command.pane ?? s.focus;
      if (pane === 'main') throw new RequestError('the main pane cannot be closed from here');
      if (!s.closeByUser(pane, now)) throw new NoSuchPanelError(pane);
      return null;
    }
    case 'zoom':
      s.zoomToggle();
      return null;
    case 'scroll':
      if ('lines' in command) s.scrollLines(command.lines);
      else s.scroll(command.pages);
      return null;
    case 'help':
      s.helpToggle();
      return null;
    case 'detach':
      // The cockpit carries it out before the board sees it (cockpit-drawn.ts): only a terminal can be detached.
      throw new RequestError('detach is a key: prefix + d detaches the terminal that types it (tai kill NAME ends a cockpit)');
    case 'lane_diff':
      return laneDiff(command, ctx);
    case 'view_close': {
      const pane = command.pane ?? s.focus;
      return { closed: pane !== 'main' && (ctx.agents?.closeView?.(pane) ?? false) };
    }
    default:
      return assertNever(command);
  }
}

/** Cancels an agent by request; a feed pane or an agent no longer running is refused. */
function cancel(command: CommandOf<'cancel'>, ctx: DispatchContext): ReplyData<'cancel'> {
  const s = ctx.board.getState();
  // A retried job: its first id (the one the caller holds) stands for the attempt running now.
  const id = ctx.agents?.currentAttempt?.(command.id) ?? command.id;
  const row = s.status(ctx.now).agents.find((a) => a.id === id);
  if (!row) throw new NoSuchPanelError(command.id);
  if (row.kind === 'feed') throw new RequestError(`pane ${command.id} is a feed pane; close it with vpane_close`);
  if (!s.cancel(id, command.reason ?? 'cancelled by request (tai cancel)', ctx.now, 'user')) {
    throw new RequestError(`agent ${id} is not running (${row.state})`);
  }
  return { id, cancelled: true };
}

async function poll(command: CommandOf<'poll'>, ctx: DispatchContext): Promise<ReplyData<'poll'>> {
  const result = await agents(ctx).poll(command.id, command.wait === undefined ? undefined : command.wait * 1000);
  if (!result) throw new RequestError(`no such agent: ${command.id}`);
  return result;
}

async function readRecord(command: CommandOf<'record_read'>, ctx: DispatchContext): Promise<ReplyData<'record_read'>> {
  const page = await agents(ctx).readRecord(command.id, command.offset, command.limit);
  if (!page) throw new RequestError(`no such record: ${command.id}`);
  return page;
}

/** Moves the focus by a direction, or sets it to the main pane or a panel that exists. */
function focus(command: CommandOf<'focus'>, ctx: DispatchContext): ReplyData<'focus'> {
  const s = ctx.board.getState();
  const to = command.to;
  if (to !== 'main' && typeof to !== 'number') {
    s.focusMove(to);
    return null;
  }
  if (to !== 'main' && !s.layout.panels.some((p) => p.id === to)) throw new NoSuchPanelError(to);
  s.focusSet(to);
  return null;
}

/** Opens the diff of a lane panel (the focused one by default) in a view. */
async function laneDiff(command: CommandOf<'lane_diff'>, ctx: DispatchContext): Promise<ReplyData<'lane_diff'>> {
  const pane = command.pane ?? ctx.board.getState().focus;
  if (pane === 'main') throw new RequestError('prefix + D opens the diff of a focused lane panel: focus one first (prefix + n)');
  if (!ctx.agents?.openLaneDiff) throw new RequestError(NO_AGENTS);
  return { view: await ctx.agents.openLaneDiff(pane) };
}

function agents(ctx: DispatchContext): AgentService {
  if (!ctx.agents) throw new RequestError(NO_AGENTS);
  return ctx.agents;
}
