/**
 * The folder `src/core/agents/`: agents as data. This file: what the dispatcher asks of whoever starts agents,
 * declared in the core so the socket, the keyboard and the CLI share one contract while the IO is injected.
 */
import type { CommandOf } from '../protocol/commands.js';
import type { PanelState } from '../panel/panel-state.js';

/** The answer to a spawn: the panel (shown or hidden) the agent runs in. */
export interface SpawnResult {
  readonly id: number;
  readonly label: string;
  readonly shown: boolean;
  /** Why the panel is hidden, when it is. */
  readonly reason?: string;
  /** The lane the agent runs in (docs/lanes.md), its worktree, and what its maker should know (a dirty main checkout). */
  readonly lane?: string;
  readonly cwd?: string;
  readonly notes?: readonly string[];
}

/**
 * An agent's result as the caller gets it (docs/spec.md, "Claim check"): the whole text when short, else head,
 * tail and the record id.
 */
export interface AgentResult {
  readonly id: number;
  readonly state: PanelState;
  /** True once the agent has finished; `text` is then final. */
  readonly finished: boolean;
  readonly text: string;
  /** Characters of the whole result. */
  readonly chars: number;
  /** Set when the whole result was stored as a record. */
  readonly recordId?: string;
  /** Why it stopped (time limit, idle, closed by the user, ...), or its summary. */
  readonly reason: string;
  /** The file that holds the whole result when the state database could not store it (docs/security.md, "Storage faults"). */
  readonly resultFile?: string;
  /** Why the result could not be stored, when it could not. */
  readonly storageError?: string;
  /** The shell exit code that matches the final state (0 done, 1 failed, 124 timeout, 130 cancelled; 74 when the result could not be stored). */
  readonly exitCode?: number;
}

/** One page of a stored record. */
export interface RecordPage {
  readonly id: string;
  readonly offset: number;
  readonly text: string;
  /** Characters in the whole record. */
  readonly total: number;
  /** Where the next page starts, or null at the end. */
  readonly next: number | null;
}

/** Starts, polls and reads agents for the dispatcher. */
export interface AgentService {
  /** Starts an agent; throws AgentsFullError past the cap. */
  spawn(request: CommandOf<'spawn'>, now: number): Promise<SpawnResult>;
  /** The agent's result so far; with `waitMs`, resolves early when it finishes. */
  poll(id: number, waitMs?: number): Promise<AgentResult | undefined>;
  /** A page of a stored record; undefined when there is no such record. */
  readRecord(id: string, offset?: number, limit?: number): Promise<RecordPage | undefined>;
  /** A follow-up message to a running agent; throws RequestError when it cannot take one. */
  steer?(id: number, text: string): SteerResult;
}

/** What a follow-up message became: sent at once, or queued until the agent's turn ends. */
export interface SteerResult {
  readonly id: number;
  readonly delivery: 'sent' | 'queued';
}
