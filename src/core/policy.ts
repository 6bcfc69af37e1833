/**
 * Every cap and floor of docs/spec.md, "Constants", with its name and value
 * (test/core/policy.test.ts holds the two together). Durations are in
 * milliseconds unless the name says otherwise. There is no configuration file
 * for these: they are the contract.
 */

/** At most this many panels per process (and live agents, docs/spec.md, "Supervision"). */
export const ORCH_PANELS_MAX = 8;
/** The board drains pending output into screens at most this often. */
export const ORCH_FLUSH_INTERVAL = 25;
/** The watchdog runs this often. */
export const ORCH_MONITOR_INTERVAL = 1_000;
/** A panel's pending buffer holds at most this many bytes; older output is dropped. */
export const ORCH_PENDING_MAX = 262_144;
/** At most this many bytes go from one panel into its screen per flush. */
export const ORCH_WRITE_MAX = 32_768;
/** A finished panel stays on screen this long. */
export const ORCH_LINGER = 20_000;
/** Silence this long shows a panel idle. */
export const ORCH_IDLE_WARN = 60_000;
/** Silence this long cancels the job (the default; a spawn's `idle_cancel` sets its own). */
export const ORCH_IDLE_KILL = 300_000;
/**
 * The range of a spawn's own silence limit (`--idle-cancel`, a registry entry's or the socket's `idle_cancel`):
 * docs/spec.md, "Supervision", calls 300 s a judgment for agents that stream. Never below the idle display.
 */
export const ORCH_IDLE_KILL_MIN = 60_000;
export const ORCH_IDLE_KILL_MAX = 3_600_000;
/** A soft stop becomes a hard stop after this long. */
export const ORCH_CANCEL_GRACE = 5_000;
/** The opening task line shows at most this many characters. */
export const ORCH_TASK_SHOW_MAX = 300;
/** Tool arguments show at most this many characters. */
export const ORCH_TOOL_ARGS_MAX = 120;
/** A tool result shows at most this many non-empty lines. */
export const ORCH_TOOL_RESULT_LINES = 3;
/** Each shown tool result line is clipped to this many columns. */
export const ORCH_TOOL_RESULT_COLS = 160;
/** A panel label holds at most this many characters. */
export const ORCH_LABEL_MAX = 60;
/** A control-socket call gives up after this long. */
export const ORCH_CALL_TIMEOUT_MS = 2_000;

/** At most this many feed panes. */
export const MPLEX_VPANE_MAX = 8;
/** A pane needs this many rows: the header plus five. */
export const MPLEX_VPANE_MIN_ROWS = 6;
/** The right column keeps at least this many columns. */
export const MPLEX_VPANE_MIN_COLS = 20;
/** The main pane takes this share of the window's width. */
export const MPLEX_VPANE_MAIN_PERCENT = 55;
/** At most this many ops in one vpane_write. */
export const MPLEX_VPANE_OPS_MAX = 16;
/** One op's data holds at most this many bytes. */
export const MPLEX_VPANE_WRITE_MAX = 65_536;
/** A header holds at most this many characters. */
export const MPLEX_VPANE_HEADER_MAX = 200;
/** A feed pane whose owner has not written for this long is orphaned. */
export const MPLEX_VPANE_LEASE = 30_000;
/** An orphaned feed pane closes after this long. */
export const MPLEX_VPANE_ORPHAN_LINGER = 10_000;
/** A done op's linger is clamped to this. */
export const MPLEX_VPANE_LINGER_MAX = 300_000;

/** The original's pane table limit (docs/spec.md, "The vpane protocol": "too many panes (limit 256)"). */
export const MPLEX_PANES_MAX = 256;
/** A window narrower than this has no room for a feed pane (docs/spec.md, "The vpane protocol"). */
export const MPLEX_VPANE_MIN_WINDOW_COLS = 41;

/** Live agents at once (docs/spec.md, "Owners and sessions", AGENTS_MAX_PARALLEL); the ninth is refused. */
export const AGENTS_MAX_PARALLEL = 8;
/** The wall clock of a forked worker: the allowed range and the default (docs/spec.md, "Supervision"). */
export const FORK_TIMEOUT_MIN = 30_000;
export const FORK_TIMEOUT_MAX = 3_600_000;
export const FORK_TIMEOUT_DEFAULT = 600_000;
/** The wall clock of one CAP turn (docs/spec.md, "Supervision"). */
export const CAP_TURN_TIMEOUT = 600_000;

/** A result longer than this many characters is stored as a record (docs/spec.md, "Claim check"). */
export const SPILL_LIMIT = 6_000;
/** A record page holds at most this many characters; a larger record_read limit is clamped to it. */
export const RECORD_PAGE_MAX = 1_000_000;
/**
 * The longest a poll may wait (ms): no agent runs longer than FORK_TIMEOUT_MAX,
 * and a longer wait would overflow Node's timers (2^31 - 1 ms); clamped to it.
 */
export const POLL_WAIT_MAX = FORK_TIMEOUT_MAX;

/** A word held back by the word wrap is released after the text pauses this long (docs/spec.md, "Panel state machine"). */
export const ORCH_WORD_RELEASE = 100;
/** Note and Error events show at most this many characters (docs/spec.md, "Formatter and sanitizing"). */
export const ORCH_NOTE_MAX = 400;
/** The footer's summary shows at most this many characters (docs/spec.md, "Formatter and sanitizing"). */
export const ORCH_SUMMARY_MAX = 300;
/** Three consecutive failed flushes stop drawing (docs/spec.md, "The board"). */
export const ORCH_DISPLAY_FAILURES_MAX = 3;
