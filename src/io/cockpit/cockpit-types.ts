/**
 * The types the cockpit's parts share: how to start a cockpit, where the
 * mention prompt finds its agents, and the running cockpit that both the
 * drawn and the undrawn wiring return.
 */
import type { AgentEntry } from '../../core/agents/agent-registry.js';
import type { Command } from '../../core/protocol/commands.js';
import type { Board } from '../../../store/board.js';
import type { Reply } from '../../../store/dispatch.js';
import type { LeadTraffic } from '../socket/lead-traffic.js';
import type { TermOutputStats } from '../terminal/term-output.js';
import type { CockpitBoard } from './cockpit-board.js';
import type { CockpitTerminal } from './cockpit-terminal.js';

/** How to start the cockpit. */
export interface CockpitOptions {
  /** The main program and its arguments; empty runs `$SHELL`. */
  readonly argv: readonly string[];
  /** Lines the user must see at start (a socket in a fallback place, agents that cannot start): shown on the main pane before its program's output, or on stderr when nothing is drawn. */
  readonly notices?: readonly string[];
  /** The board, made beforehand with `createCockpitBoard` for the same stdout; default one made at start. */
  readonly board?: CockpitBoard;
  /** The control socket's path, given to the main program as TAI_PLEXER_SOCKET. */
  readonly socketPath?: string;
  /** Carries out the keyboard's commands and answers with the reply; the default is store/dispatch.ts without agents. */
  readonly dispatch?: (command: Command, cockpit: RunningCockpit) => Promise<Reply> | void;
  /** Where `@name` mentions find their agents; each field defaults to the user's registry, PATH and cwd. */
  readonly mentions?: MentionSource;
  /** The prefix key (a byte, or a name like `C-a`); default TAI_PREFIX or Ctrl-]. */
  readonly prefix?: string;
  /** The cockpit's name (`tai -s NAME`), on its status line; default `PID PROGRAM`. */
  readonly name?: string;
  /** Where a drawn cockpit draws: the clients of its link (the server); default this process's stdin and stdout. */
  readonly terminal?: CockpitTerminal;
  readonly stdin?: NodeJS.ReadStream;
  readonly stdout?: NodeJS.WriteStream;
  readonly env?: NodeJS.ProcessEnv;
  readonly now?: () => number;
  /** Where the board and the cockpit report what they cannot throw. */
  readonly log?: (line: string) => void;
  /** An agent's process group, for what it costs in the agent list (src/io/cost/); none without. */
  readonly pgidOf?: (id: number) => number | undefined;
  /** Set with `tai --wake`: the control socket's record of the lead, and the drawn cockpit wakes it (src/io/lead/wake-wiring.ts). */
  readonly lead?: LeadTraffic;
}

/** Where the mention prompt finds agents. */
export interface MentionSource {
  /** The registry in effect; default the user's agents.json merged over the built-ins. */
  loadEntries?(): Promise<readonly AgentEntry[]>;
  /** Where an entry's program is; default a PATH lookup. */
  locate?(entry: AgentEntry): string | undefined;
  /** Where an agent whose entry names no directory starts; default the cockpit's. */
  readonly cwd?: string;
}

/** A running cockpit. */
export interface RunningCockpit {
  readonly board: Board;
  /** Null while drawing; otherwise why nothing is drawn. */
  readonly drawingOff: string | null;
  readonly now: () => number;
  /** Resolves with the exit code once agents are stopped and the terminal restored. */
  readonly done: Promise<number>;
  /** Bytes and frames written to the terminal (zero when nothing is drawn). */
  readonly stats: TermOutputStats;
  /** Tells the user a line now (on the main pane, or on stderr when nothing is drawn). */
  notice(line: string): void;
  /** Ends the cockpit as if the main program had exited with `code`. */
  stop(code: number): void;
}
