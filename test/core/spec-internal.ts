/**
 * The exported constants that are not contract, each with why (docs/spec.md, "Constants"):
 * test/core/spec-constants.test.ts fails on any exported UPPER_CASE constant of src/, store/
 * and components/ that has neither a row in the spec nor a place here.
 */
const internal: Record<string, string> = {};

/** Files each space-separated name under one reason; a name given twice is a mistake. */
function why(reason: string, names: string): void {
  for (const name of names.split(/\s+/).filter(Boolean)) {
    if (name in internal) throw new Error(`${name} is listed twice in test/core/spec-internal.ts`);
    internal[name] = reason;
  }
}

// Values the spec gives in its prose or another page gives in a table.
why('its values are in the prose of "Exit codes", checked by spec-constants.test.ts', 'EXIT_CODES');
why('the remote clocks, in docs/remote.md with their values', 'REMOTE_CLOCKS');
why("the server's Node flags: tuning (docs/performance.md), named in the spec only for TAI_SERVER_FLAGS", 'SERVER_NODE_FLAGS');

// Contract figures restated in another unit or shape, each derived from the one the spec gives.
why('FORK_TIMEOUT_MIN and _MAX in seconds, for the registry and the CLI', 'AGENT_TIMEOUT_MIN_S AGENT_TIMEOUT_MAX_S');
why('ORCH_IDLE_KILL_MIN and _MAX in seconds, for --idle-cancel', 'IDLE_CANCEL_MIN_S IDLE_CANCEL_MAX_S');
why("halves of TRANSCRIPT_MAX_BYTES, as its row says", 'TRANSCRIPT_HEAD_BYTES TRANSCRIPT_TAIL_BYTES');
why('MPLEX_VPANE_MIN_COLS under the name the column fit reads', 'COLUMN_MIN_COLS');
why('SPILL_LIMIT: the page record_read gives when it is asked for none', 'RECORD_PAGE_DEFAULT');
why('the three WAKE_* rows as one object', 'WAKE_DELAYS');
why("the outage schedule's rows as the steps the schedule walks", 'OUTAGE_WIDENING_STEPS');
why('the lane statistics\' timings as one object', 'STAT_TIMING COLLIDE_TIMING');
why('an upper bound of the longest valid request line, which REQUEST_LINE_MAX stays above', 'LARGEST_VALID_REQUEST');
why("the name of TAI_LANE_DROP_DAYS, which the spec's switches table gives", 'DROP_KEEP_ENV');
why("the name of TAI_EXEC_FD, which the spec's switches table gives", 'EXEC_FD_VARIABLE');

// Words: messages, usage texts, labels, refusals. Each is tested where it is shown; the spec quotes some.
why('a message or label shown to a person', `
  USAGE VPANE_USAGE DUMB_TERMINAL NO_DISPLAY NO_AGENTS NO_COCKPIT_HINT CANNOT_DETACH WAKE_UNDRAWN MENTION_USAGE NO_LANES
  SUPERVISOR_GONE SUPERVISOR_GONE_RESTORABLE COCKPIT_EXITING COCKPIT_CRASHED SEAM LIST_TITLE PROMPT_LABEL HIDDEN STDERR_MARK
  TRANSCRIPT_FOOTER FAILURE_WORDS BASE`);
why('a refusal text, quoted in "The vpane protocol" and tested by the socket conformance test', 'VPANE_ERRORS REASON_TOO_NARROW REASON_NO_SPACE REASON_TOO_MANY');
why("the prompt a resumed agent is given, an agent's words not a limit", 'INTERRUPTED_PROMPT');

// Escape sequences, control bytes and colours: the terminal's vocabulary, not tai's promise.
why('an SGR sequence or colour code', 'RESET DIM RED GREEN YELLOW MAGENTA MAGENTA_BOLD CYAN GREY ORANGE HEADER_SGR SEPARATOR_SGR FOCUS_SGR');
why('a control byte', 'ESC BEL CAN SUB DEL C1_CSI C1_ST');
why("a terminal's mode switches or a line end", 'ENTER MOUSE_ON LEAVE CRLF SKIPPED_LINE');
why('a key sequence the terminal sends', 'SCROLL_UP SCROLL_DOWN PAGE_UP PAGE_DOWN HELP_SCROLL PASTE_START PASTE_END');
why('a panel header\'s palette, icons and colours (the spec gives them in "Panel state machine")', 'COLOR_PALETTE PLAIN_PALETTE STATE_ICON STATE_COLOR');

// The key table: the keys are in the help (prefix + ?) and docs/cockpit.md, drawn from these.
why('a key of the key table, shown by the help', 'MENTION_KEYS COPY_KEYS LIST_KEYS SCROLL_LEAVE_KEYS PREFIX_KEYS PREFIX_COMMANDS');
why('the prefixes refused, each with its reason in the refusal', 'REFUSED_PREFIXES');

// Names and shapes the code shares between its parts: enumerations, patterns, empty values.
why('an enumeration the parsers and the types share', `
  AGENT_KINDS AGENT_PERMISSIONS PERMISSION_POLICIES DEFAULT_ANSWERS AUDIT_EVENTS RULE_DECISIONS PANEL_STATES COMMAND_NAMES
  FEED_STATES FOCUS_TARGETS ANSWER_BY OUTAGE_LOG_KINDS RESUMABLE_KINDS LEAD_CLIENTS AGENT_CLIS DECLARED_TOOLS ENDING_SIGNALS
  DETACH_SIGNALS RESET_HEADERS`);
why("the variables a lead's MCP server is given, to find its cockpit and the state", 'LEAD_ENV');
why('a compile-time check that the command list is complete', 'COMMAND_NAMES_COMPLETE');
why("a name's pattern; its refusal message states the rule", 'AGENT_NAME LANE_NAME COCKPIT_NAME');
why('an empty or starting value of a pure state', 'EMPTY_QUEUE EMPTY_LINE WHOLE_FILE NO_CHANGE QUIET_TRIGGER UI_START');
why("a rule's wildcard tool", 'ANY_TOOL');
why('the built-in agents, listed by `tai agents` and docs/agents.md', 'BUILTIN_AGENTS');
why("the command line's option table", 'ASK_OPTIONS');
why("the link's frame kinds, in docs/protocol.md, \"Frames\"", 'FRAME');
why("a version of a file format of tai's own, read back only by tai", 'LAUNCH_VERSION RESTORE_SCHEMA');
why("the demo agents' default set", 'DEFAULT_DEMO');
why('the runners by kind', 'DEFAULT_RUNNERS');
why("Claude's interrupt request, in its SDK's shape", 'CLAUDE_INTERRUPT');
why('the file descriptor the server says it is ready on', 'READY_FD');
why("/proc's clock ticks per second (USER_HZ)", 'CLOCK_TICKS');
why("a size the board assumes before it has a terminal's", 'DEFAULT_COLS DEFAULT_ROWS');

// Paths, scripts and marks of tai's own: where the code finds its parts, what it runs on a host.
why("a path inside tai's install or state folder", 'CLI_PATH NATIVE_CLIENT NATIVE_REAPER SERVER_SCRIPTS REMOTE_AGENT_SCRIPT REMOTE_RUN_SCRIPT LANES_DIR SAVED_EDITS_DIR HOST_SLOT_DIR');
why('a script tai runs on a host or in a process of its own', 'HOST_SLOT_SCRIPT HOST_COUNT_SCRIPT REMOTE_REAPER REMOTE_ATTACH PROBE_SCRIPT REAPER_SOURCE');
why('a mark in a script\'s output that tai reads back', 'PROBE_BEGIN JOB_MADE_MARK ANSWER');
why('a trigger of the state database\'s schema', 'RECORD_DELETE_TRIGGER');

// Tuning: how often, how long, how much at a time. Changing one changes cost, not what tai promises.
why('tuning: frame pacing and flood handling', 'FRAME_MS PANEL_FRAME_MS EXPEDITE_MS FLOOD_WINDOW_MS FLOOD_FLUSH_MS MAIN_FLOOD_BYTES FLOOD_FRAME_MS UNSEEN_TICK_EVERY');
why("tuning: the pace an agent's pipes are read at", 'PACE_MS FLOOD_START_BYTES FLOOD_END_BYTES');
why('tuning: how much formatting or parsing one turn does', `
  FORMAT_SLICE FORMAT_PIECE FORMAT_FLUSH FORMAT_BACKLOG_MAX SOURCE_LINES_MAX SOURCE_UNITS_MAX SOURCE_PART_UNITS PIECES_JOINED
  CLAMP_SLICE_WORK CSI_SEQUENCE_WORK SEGMENT_SLICE LINK_CHUNK`);
why('a bound on a sequence parsed, so a hostile one costs little', 'KEY_SEQUENCE_MAX PARAMS_MAX SANITIZE_SEQUENCE_MAX NETWORK_LINE_MAX');
why('tuning: a retry, poll or look period', `
  LOGS_POLL_MS LIVE_STATUS_MS COCKPIT_SAMPLE_MS POLL_WAIT_S OPEN_RETRY_MS OPEN_BUSY_MS INDEX_RETRY_MS RETRY_EVERY_MS QUEUE_RETRY_MS
  COST_SAMPLE_MS COST_REST_MS HOLD_LOOK_MS LANE_GONE_CHECK_MS LEAD_QUEUE_MS WAIT_LOOK_MS OUTAGE_POLL_MS OUTAGE_POLL_FLOOR_MS WAIT_RECENT_MS`);
why("tuning: when a lane's diff statistics are taken again", 'LANE_STAT_EVERY_MS LANE_STAT_MAX_EVERY_MS LANE_STAT_SETTLE_MS LANE_STAT_SETTLE_MAX_MS LANE_STAT_GAP_MS LANE_WATCH_MAX');
why('tuning: a short wait while a process or a connection ends', 'END_GRACE_MS LEAVE_WAIT_MS FAREWELL_WAIT_MS TTY_FLUSH_WAIT_MS FIRST_CLIENT_WAIT_MS');
why('tuning: the idle collection of the server\'s heap (docs/performance.md)', 'IDLE_COLLECT_MS IDLE_COLLECT_TRIES COMPACT_WASTE_BYTES STREAM_LOOK_MS STREAM_WASTE_BYTES BUSY_SHARE');
why("tuning: the state database's write-ahead log, cache and vacuum", 'WAL_KEEP_BYTES WAL_CHECKPOINT_PAGES STATE_DB_CACHE_KIB WAL_PACED_BYTES GC_VACUUM_MAX_BYTES GC_VACUUM_SLACK ROOM_BYTES');
why('tuning: how records and transcripts are cut into parts and written', `
  RECORD_PART RECORD_OVERLAP TRANSCRIPT_SLICE TRANSCRIPT_END_AT_ONCE TRANSCRIPT_QUEUE_MAX TRANSCRIPT_REST_MS TRANSCRIPT_WRITE_MS
  TRANSCRIPT_PART_UNITS`);
why('a cache or memory size', 'TOOL_IDS_MAX FAILURES_KEEP CLOSED_KEEP');
why('finished transcripts kept in memory for the agent list to reopen: a memory bound', 'KEPT_TRANSCRIPTS_MAX');
why("how much of a text a view shows; the spec's limits bound what is kept", 'DETAIL_LINES_MAX DIFF_KEEP_MAX SNIPPET_BEFORE SNIPPET_SPAN EVENT_HEAD EVENT_TAIL LAST_LINES WHEEL_LINES TAB_STOP');
why('a judgment of when a main program fails at once', 'FAILS_AT_ONCE_MS');
why("the slack allowed between a process's start in /proc and the start it recorded", 'START_SLACK_MS');
why('the most lanes ordered by trying every subset', 'EXACT_MAX');

export const INTERNAL: Readonly<Record<string, string>> = internal;
