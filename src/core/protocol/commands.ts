/**
 * The folder `src/core/protocol/`: the one command type, its JSON form, the socket's line decoder. This file: one
 * command type, two doors (docs/architecture.md, "One command type, two doors"): the keyboard and the socket both
 * make these, one dispatcher runs them. The vpane_* commands are the original's protocol word for word
 * (docs/spec.md, "The vpane protocol"); field names are the wire names.
 */
import type { PaneId } from '../panel/layout.js';
import type { PanelState } from '../panel/panel-state.js';
import type { DefaultAnswer, PermissionPolicy } from '../agents/questions.js';
import type { RuleDecision } from '../inbox/rules.js';

/** Who answers over the socket: `tai ask` (the default) or the MCP lead. */
export const ANSWER_BY = ['tai ask', 'lead'] as const;
export type AnswerBy = (typeof ANSWER_BY)[number];

/** States a feed pane's owner may set (docs/spec.md, "The vpane protocol"). */
export type FeedState = Extract<PanelState, 'running' | 'idle' | 'done' | 'failed' | 'timeout' | 'cancelled'>;

/** One op of a vpane_write. */
export interface VpaneOp {
  readonly pane: number;
  readonly data?: string;
  readonly header?: string;
  readonly state?: FeedState;
  readonly done?: boolean;
  /** Seconds; clamped to MPLEX_VPANE_LINGER_MAX. */
  readonly linger?: number;
}

/** Directions focus can move in. */
export type FocusTarget = 'next' | 'prev' | 'left' | 'right' | 'up' | 'down';

/** Everything the cockpit can be asked to do. */
export type Command =
  // the original's feed-pane protocol
  | {
      readonly cmd: 'vpane_open';
      readonly pane?: string;
      readonly label?: string;
      readonly header?: string;
      readonly state?: FeedState;
      readonly main_percent?: number;
    }
  | { readonly cmd: 'vpane_write'; readonly ops: readonly VpaneOp[] }
  | { readonly cmd: 'vpane_close'; readonly pane: number }
  | { readonly cmd: 'vpane_list' }
  // tai's own, for agents and scripts
  | {
      readonly cmd: 'spawn';
      readonly kind: string;
      readonly argv: readonly string[];
      readonly label?: string;
      readonly prompt?: string;
      /** Wall clock in seconds (FORK_TIMEOUT_MIN..MAX). */
      readonly timeout?: number;
      /** Seconds without an event that cancel the agent (ORCH_IDLE_KILL_MIN..MAX); omitted: ORCH_IDLE_KILL's 300. */
      readonly idle_cancel?: number;
      readonly cwd?: string;
      readonly retries?: number;
      readonly allow?: boolean;
      /** What the agent's permission requests get (acp, claude); omitted: `allow` decides, else reject. */
      readonly permissions?: PermissionPolicy;
      /** Seconds an unanswered question waits before it gets `ask_default`. */
      readonly ask_timeout?: number;
      readonly ask_default?: DefaultAnswer;
      /** Command agents: keep stdin open for lines typed into the panel. */
      readonly stdin?: boolean;
      /** Keep the agent's session under this key and continue it on later spawns with the same key (acp). */
      readonly session?: string;
      /** Run the agent in a new lane of the git repository at `cwd` (docs/lanes.md): its name, or '' for one made from the label. */
      readonly lane?: string;
      /** Run the agent in the existing lane of this name (a restart; `tai lane restart`). */
      readonly in_lane?: string;
      /** The registry entry it was started from (`@name`), kept with its launch (docs/restore.md). */
      readonly agent?: string;
      /** Resume the agent's own session of this id instead of starting a new one (a restore; docs/restore.md). */
      readonly resume?: string;
      /** Run the agent on this host over ssh, under tai's reaper there (docs/remote.md); `cwd` is then a folder on the host. */
      readonly host?: string;
      /** With `host`: seconds the host waits for a lost link before it stops the agent itself (default 600; docs/remote.md). */
      readonly host_grace?: number;
    }
  | { readonly cmd: 'cancel'; readonly id: number; /** Why, as the footer says it (at most a header's length); default `cancelled by request (tai cancel)`. */ readonly reason?: string }
  | { readonly cmd: 'status' }
  /** The result so far; `wait` (seconds) long-polls until the agent finishes. */
  | { readonly cmd: 'poll'; readonly id: number; readonly wait?: number }
  | { readonly cmd: 'record_read'; readonly id: string; readonly offset?: number; readonly limit?: number }
  /** Every question agents wait on (src/core/agents/questions.ts). */
  | { readonly cmd: 'ask_list' }
  /** Answers question `qid` with `option`: its id, its number, `y` or `n`; `by` names the MCP lead (default `tai ask`). */
  | { readonly cmd: 'ask_answer'; readonly qid: string; readonly option: string; readonly by?: AnswerBy }
  /** Answers every open question of a tool and/or an agent (docs/agents.md, "The inbox"). */
  | { readonly cmd: 'ask_answer_all'; readonly tool?: string; readonly agent?: string; readonly option: string; readonly by?: AnswerBy }
  /** Holds a rule of the inbox; `expires_at` in ms since the epoch; `saved` when the caller also wrote it to the registry. */
  | {
      readonly cmd: 'ask_rule_add';
      readonly decision: RuleDecision;
      readonly tool: string;
      readonly path?: string;
      readonly prefix?: string;
      readonly agent?: string;
      readonly lane?: string;
      readonly expires_at: number;
      readonly everything?: boolean;
      readonly saved?: boolean;
    }
  /** The inbox's live rules. */
  | { readonly cmd: 'ask_rule_list' }
  /** Drops rule `rule` (`R3`). */
  | { readonly cmd: 'ask_rule_drop'; readonly rule: string }
  /** A follow-up message to a running agent (ACP, Claude) or a line to a command agent's stdin. */
  | { readonly cmd: 'steer'; readonly id: number; readonly text: string }
  // the keyboard's, also accepted on the socket
  /** Focus moves in a direction, or to a pane by id ('main' or a shown panel; a click). */
  | { readonly cmd: 'focus'; readonly to: FocusTarget | PaneId }
  /** Close a pane as the user would (cancels its agent); no pane: the focused one. */
  | { readonly cmd: 'close'; readonly pane?: number }
  | { readonly cmd: 'zoom' }
  /** Scrolls the focused pane by pages (0: back to the bottom) or, for the wheel, by lines; negative is back. */
  | { readonly cmd: 'scroll'; readonly pages: number }
  | { readonly cmd: 'scroll'; readonly lines: number }
  | { readonly cmd: 'help' }
  /** Open the diff of a lane's panel in a read-only view, zoomed (prefix + D); no pane: the focused one (docs/lanes.md). */
  | { readonly cmd: 'lane_diff'; readonly pane?: number }
  /** The keyboard's only: detaches the terminal that typed it (the cockpit's server goes on). */
  | { readonly cmd: 'detach' }
  /** Close a read-only view (`q` in it); no pane: the focused one. Any other pane is left alone. */
  | { readonly cmd: 'view_close'; readonly pane?: number };

/** The name of a command. */
export type CommandName = Command['cmd'];

/** The command of a given name. */
export type CommandOf<N extends CommandName> = Extract<Command, { cmd: N }>;
