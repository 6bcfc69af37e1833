/**
 * The board's public types: what it publishes (the snapshot), what it
 * offers (the actions) and how it is built. See store/board.ts.
 */
import type { StoreApi } from 'zustand/vanilla';
import type { AgentEvent } from '../src/core/events.js';
import type { FeedState, FocusTarget } from '../src/core/protocol/commands.js';
import type { Layout, PaneId } from '../src/core/panel/layout.js';
import type { FinalState, PanelState, StopCause } from '../src/core/panel/panel-state.js';
import type { Screen, ScreenFactory } from '../src/core/screen.js';
import type { AgentCounts, AgentRow, BoardStatus } from './status.js';
import type { AnsweredQuestion, AskedListener, BatchAnswered, Question, QuestionAnswer, QuestionAsk, QuestionRow } from '../src/core/agents/questions.js';
import type { RuleRequest } from '../src/core/inbox/rule-input.js';
import type { BatchFilter, RuleAdded, RuleDecision, RuleRow } from '../src/core/inbox/rules.js';
import type { AuditListener } from './board-inbox.js';

/** A panel fed by an agent's events, or a feed pane fed raw bytes over the socket. */
export type PanelKind = 'agent' | 'feed';

/** Told each agent event with its panel's id and time, before the board sees it (store/board-events.ts). */
export type EventListener = (id: number, event: AgentEvent, now: number) => void;

/** The owner's stop hooks; each is called at most once. */
export type StopHook = (reason: string) => void;

/** What React and socket clients see of one panel. */
export interface PanelView {
  readonly id: number;
  readonly kind: PanelKind;
  readonly label: string;
  readonly task: string;
  readonly state: PanelState;
  readonly header: string;
  /** False when the panel has no rectangle; `reason` says why. */
  readonly shown: boolean;
  readonly reason?: string;
  /** Finished (or done, for a feed pane) and waiting to leave the screen. */
  readonly closing: boolean;
  /** The size of the panel's screen (its rectangle less the header row). */
  readonly cols: number;
  readonly rows: number;
}

/** The published state. */
export interface BoardSnapshot {
  readonly panels: readonly PanelView[];
  readonly layout: Layout;
  readonly cols: number;
  readonly rows: number;
  /** Null while drawing; otherwise why nothing is drawn. */
  readonly drawingOff: string | null;
  readonly focus: PaneId;
  readonly zoom: PaneId | null;
  /** Where the focus was before the agent list zoomed a panel: un-zooming gives it back there. */
  readonly zoomFrom: PaneId | null;
  readonly help: boolean;
  /** The first line the help overlay shows (a window too short for all of it scrolls). */
  readonly helpTop: number;
  /** Lines scrolled back in the focused pane; 0 follows the output. */
  readonly scrollback: number;
  /** NO_COLOR: tai's own chrome is drawn in bold and inverse only (src/core/panel/colors.ts). */
  readonly noColor: boolean;
  /** The window's last row is the status line (the cockpit's; a host's box has none). */
  readonly statusLine: boolean;
  /** Agents waiting for the user to answer a question (the status line's count). */
  readonly asking: number;
  /** Live agents, with a panel or not: it changes when one off the screen ends, which the status line counts. */
  readonly live: number;
}

/** How to open a panel. */
export interface OpenSpec {
  readonly label: string;
  readonly task?: string;
  readonly kind?: PanelKind;
  /** Wall clock in ms from now; omitted: no limit (the owner's own). */
  readonly timeoutMs?: number;
  /** Silence in ms that cancels the agent; omitted: ORCH_IDLE_KILL (docs/spec.md, "Supervision"). */
  readonly idleKillMs?: number;
  /** Feed panes: the header line and state the owner starts with. */
  readonly header?: string;
  readonly state?: FeedState;
  /** Feed panes: the main pane's share of the width (vpane_open main_percent). */
  readonly mainPercent?: number;
  /** An agent on another host: counted in its host's own slots, not in this board's cap (docs/remote.md). */
  readonly host?: string;
}

/** How a hold differs from an outage's. */
export interface HoldOptions {
  /** The agent cannot be reached while held (a remote agent's lost link): a stop waits for the hold's end. */
  readonly stopWaits?: boolean;
}

/** The actions; all take `now` where time matters. */
export interface BoardActions {
  /** Opens a panel and returns its id; never returns nothing (a hidden panel has a reason). */
  open(spec: OpenSpec, now: number): number;
  /** An agent event: a heartbeat, counted, formatted into the panel's pending output. */
  emit(id: number, event: AgentEvent, now: number): void;
  /** Feed panes: raw terminal output into the screen; refreshes the lease. */
  write(id: number, data: string, now: number): void;
  /** Feed panes: a vpane_write op's header/state/done; refreshes the lease. */
  feed(id: number, op: { header?: string; state?: FeedState; done?: boolean; linger?: number }, now: number): void;
  /** The owner reports the end; returns the final state (a requested stop decides it). */
  finish(id: number, state: FinalState, summary: string, now: number): FinalState | undefined;
  /** Holds a live agent for an outage: header `waiting for <service>`, idle clock and wall clock paused. */
  hold(id: number, service: string, now: number, options?: HoldOptions): void;
  /** Ends a hold: running again, the wall clock extended by the time held. */
  resume(id: number, now: number): void;
  /** Sets an agent panel's tag, shown in its header after the elapsed time (a lane: `⎇ NAME · 3 files +10 −2`, docs/lanes.md). */
  tag(id: number, text: string, now: number): void;
  /** Registers the owner's soft stop and, optionally, its hard stop. */
  setCancel(id: number, soft: StopHook, hard?: StopHook): void;
  /** Asks a live agent to stop softly; hard after the grace. False if not live. */
  cancel(id: number, reason: string, now: number, cause?: StopCause): boolean;
  /** The user closed the panel: it leaves the screen now and its agent is cancelled. */
  closeByUser(id: number, now: number): boolean;
  /** The owner closes a panel (vpane_close): it leaves now, nothing is cancelled. */
  close(id: number, now: number): boolean;
  /** Cancels every live agent (the cockpit is exiting). */
  shutdown(reason: string, now: number): void;
  /**
   * An agent asks the user (store/board-questions.ts): its panel shows the question and waits; `reply` is called
   * once (the answer, the timeout's default, or `cancelled`). The question's id, or undefined if answered at once.
   */
  ask(id: number, ask: QuestionAsk, now: number, reply: (answer: QuestionAnswer) => void): string | undefined;
  /** Answers an open question with the option `key` names (id, number, y, n); throws QuestionError naming why not. */
  answer(qid: string, key: string, by: string, now: number): AnsweredQuestion;
  /** Every question waiting, oldest first. */
  questions(now: number): QuestionRow[];
  /** The open question of a panel, if any. */
  questionOf(id: number): Question | undefined;
  /** Calls `listener` whenever a question opens; returns the unsubscribe. */
  onAsked(listener: AskedListener): () => void;
  /** Holds a rule of the inbox and answers the waiting questions it covers (store/board-questions.ts); throws RuleError. */
  addRule(req: RuleRequest, saved: boolean, now: number): RuleAdded;
  /** A rule for the tool of panel `id`'s open question, for its agent (the panel's `a` / `r` keys). */
  ruleFromKey(id: number, decision: RuleDecision, now: number): RuleAdded;
  /** The live rules. */
  rules(now: number): RuleRow[];
  /** Drops a rule; throws RequestError when there is none. */
  dropRule(id: string, now: number): RuleRow;
  /** Answers every open question the filter takes (a tool, an agent). */
  answerAll(filter: BatchFilter, key: string, by: string, now: number): BatchAnswered;
  /** Calls `listener` with every audit entry (a question asked, answered, cancelled); returns the unsubscribe. */
  onAudit(listener: AuditListener): () => void;
  /** The watchdog: runs every ORCH_MONITOR_INTERVAL. */
  tick(now: number): void;
  /** Drains pending output into screens; at most once per ORCH_FLUSH_INTERVAL. True if anything was written. */
  flush(now: number): boolean;
  /** True while a flush has work: output waits for a screen, a word is held back, a feed op is unpublished. */
  pending(): boolean;
  /** True while any record needs the watchdog: live, lingering, closed but still running, or a feed pane's lease. */
  active(): boolean;
  /**
   * When the watchdog next has work as of `now` (`now` while a seen agent is live; else the earliest decision,
   * removal or lease; undefined: none): the clock sleeps until then, and the board wakes it when work appears.
   */
  nextDue(now: number): number | undefined;
  /**
   * Calls `listener` when work appears for the clock: output became pending
   * (once per flush, not per token) or a panel opened. Returns the unsubscribe.
   */
  onWake(listener: () => void): () => void;
  /**
   * Calls `listener` after every tick with its time: work due on the watchdog's second (the restore record's sign
   * of life) rides its wake-up instead of a timer of its own. Returns the unsubscribe.
   */
  onTick(listener: (now: number) => void): () => void;
  /**
   * Who sees the board (a server: whether a client is attached; default: always). Unseen, a tick deciding nothing
   * publishes no header text and the clock ticks only when due or every UNSEEN_TICK_EVERY ticks (docs/performance.md).
   */
  seenBy(seen: () => boolean): void;
  /** Whether anybody sees the board now (seenBy). */
  seen(): boolean;
  /** Somebody sees the board again (a client attached): the headers' time published at `now`, the clock woken. */
  seenAgain(now: number): void;
  /**
   * Calls `listener` with every event, before the board sees it, until unsubscribed; a listener's throw is told
   * to `onError` (omitted: the board's log) and the event goes on.
   */
  listen(listener: EventListener, onError?: (err: unknown) => void): () => void;
  /** The window's size changed. */
  resize(cols: number, rows: number): void;
  /** Totals by state and a row per agent (docs/spec.md, "Status API"). */
  status(now: number): BoardStatus;
  /** How many agents are in each state, as `status` counts them; its work does not grow with the agents that ended. */
  agentCounts(): AgentCounts;
  /** The row `status` has for `id`, without making the others (a poll and an agent's end ask for one). */
  rowOf(id: number, now: number): AgentRow | undefined;
  /** The screen of a panel, for the renderer; undefined when nothing is drawn. */
  screenOf(id: number): Screen | undefined;
  /**
   * The agent list's Enter: focuses and zooms `id`'s panel, a hidden one too; a finished agent's left panel comes
   * back from the kept transcripts until closed. False when nothing can be shown (no screen kept, drawing off).
   */
  reveal(id: number, now: number): boolean;
  /** Whether `reveal(id)` would have a screen to show. */
  transcriptKept(id: number): boolean;
  /**
   * A number that moves, at the publish that carries it, when a row of `status` reads differently (an agent
   * ended, a tag, a live or asking count, a running agent's elapsed time at a tick).
   */
  rowsVersion(): number;
  /** Calls `listener` each time `rowsVersion` moves (the open agent list follows it); returns the unsubscribe. */
  onRowsMoved(listener: () => void): () => void;
  focusMove(to: FocusTarget): void;
  focusSet(pane: PaneId): void;
  zoomToggle(): void;
  helpToggle(): void;
  /** Shows the open help from its line `top` (the key router keeps it within the help). */
  helpScroll(top: number): void;
  /** Scrolls the focused pane by whole pages (negative: back); 0 returns to the bottom. */
  scroll(pages: number): void;
  /** Scrolls the focused pane by lines (the wheel; negative: back), as far as its screen keeps. */
  scrollLines(lines: number): void;
}

/** The store: snapshot plus actions. */
export type BoardState = BoardSnapshot & BoardActions;
export type Board = StoreApi<BoardState>;

/** Counters for the benchmark and for tests; not part of the snapshot. */
export interface BoardCounters {
  flushes: number;
  bytesWritten: number;
  events: number;
  displayFailures: number;
  hookErrors: number;
  /** UTF-16 units of agent text the panels' formatters walked (a long text is formatted a slice a flush). */
  formatted: number;
}

/** How to build a board. */
export interface BoardOptions {
  /** Makes screens; omitted, nothing is drawn and `drawingOff` says so. */
  readonly createScreen?: ScreenFactory;
  /** Why drawing is off although a factory exists (TAI_ORCH_PANELS=0, not a TTY). */
  readonly drawingOff?: string;
  readonly cols?: number;
  readonly rows?: number;
  readonly maxLive?: number;
  /** Where the board reports what it cannot throw (hook errors, display failures). */
  readonly log?: (line: string) => void;
  /** How many lines the main pane can be scrolled back (its screen is the cockpit's); omitted: unbounded. */
  readonly mainHistory?: () => number;
  /** Rows kept for status after a panel is gone. */
  readonly historyMax?: number;
  /** Finished agents' screens kept for the agent list after their panels left; default KEPT_TRANSCRIPTS_MAX. */
  readonly keptTranscripts?: number;
  /** Told every event from the start, as if `listen` was called at once. */
  readonly onEvent?: EventListener;
  /** NO_COLOR: no colour in tai's own chrome. */
  readonly noColor?: boolean;
  /** Keep the window's last row for the status line (the cockpit); default false (a host's box). */
  readonly statusLine?: boolean;
}

