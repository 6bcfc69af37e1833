/**
 * Agents for a library user (docs/embedding.md): the cockpit's LocalAgentService (supervision, the claim check,
 * the machine-wide cap) on a state database of the host's choosing, without the outage watch. An acp spawn naming
 * a `session` key keeps its agent for the next spawn with that key until `close()`.
 */
import { join } from 'node:path';
import type { Board } from '../../../store/board.js';
import { LocalAgentService } from '../agents/agent-service.js';
import { AgentsStore, currentRun } from '../storage/agents-store.js';
import { AgentSlots } from '../storage/agent-slots.js';
import { closer } from '../agents/open-agent-service.js';
import { RecordStore } from '../storage/records.js';
import { AcpSessionPool } from '../agents/runners/acp/acp-pool.js';
import type { Runner } from '../agents/runners/runner.js';
import { runnersWithSessions } from '../agents/runners/table.js';
import { openStateDb, stateDir, STATE_DB_FILE } from '../storage/state-db.js';

/** How to start the service; every field has a default. */
export interface AgentServiceStartOptions {
  /** The SQLite file for long results and the agents' rows; default tai's own (`$XDG_STATE_HOME/tai/tai.db`). */
  readonly dbPath?: string;
  /** The clock results are stamped with; default Date.now. */
  readonly now?: () => number;
  /** The runner of each kind; default every kind tai knows (command, acp, claude, codex, cap). */
  readonly runners?: Readonly<Record<string, Runner>>;
}

/** A started service and how to close it. */
export interface StartedAgentService {
  readonly service: LocalAgentService;
  /** Stops listening to the board, closes the kept ACP sessions and the database; cancel live agents first. */
  close(): void;
}

/** Starts an agent service on `board`. */
export function startAgentService(board: Board, options: AgentServiceStartOptions = {}): StartedAgentService {
  const db = openStateDb(options.dbPath ?? join(stateDir(), STATE_DB_FILE));
  try {
    const sessions = new AcpSessionPool(options.now === undefined ? {} : { now: options.now });
    const run = currentRun();
    // The machine's cap: a host's agents count the same slots as the cockpits' and tai spawn's.
    const slots = new AgentSlots(db, { run });
    const service = new LocalAgentService({
      board,
      run,
      slots,
      records: new RecordStore(db),
      agents: new AgentsStore(db),
      ...(options.now === undefined ? {} : { now: options.now }),
      runners: options.runners ?? runnersWithSessions(sessions),
    });
    return { service, close: closer(service, sessions, db, slots) };
  } catch (err) {
    db.close();
    throw err;
  }
}
