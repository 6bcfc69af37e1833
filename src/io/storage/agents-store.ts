/**
 * The agents' rows on the state database, so `tai status` and `tai poll` answer after their cockpit is gone
 * (docs/architecture.md, "Persistence"); keyed by the supervisor's run and panel id, as ids restart in every
 * process. A row whose result went to a record keeps only the claim check's view's place, and `get` reads it from
 * the record (src/io/records/agent-record-view.ts).
 */
import { claimLine } from '../../core/agents/claim-check.js';
import { PANEL_STATES, type PanelState } from '../../core/panel/panel-state.js';
import type { AgentRow } from '../../../store/status.js';
import { guardBusy, migrate, type StateDb } from './state-db.js';
import { compactOldViews, RECORD_DELETE_TRIGGER, splitView } from '../records/agent-record-view.js';
import { recordSliceSql } from '../records/record-slice.js';

/** One agent as stored. */
export interface StoredAgent {
  /** The supervising process's run: `<pid>-<start ms>`. */
  readonly run: string;
  readonly id: number;
  readonly kind: string;
  readonly label: string;
  readonly task: string;
  readonly state: PanelState;
  readonly startedAt: number;
  readonly finishedAt: number | null;
  /** Why it stopped, or its summary. */
  readonly reason: string;
  /** The claim check's record, when the result was stored. */
  readonly recordId: string | null;
  readonly chars: number;
  readonly exitCode: number | null;
  /** The result as handed back (the claim-check view when stored). */
  readonly text: string;
  /** Tool calls and tokens as the board counted them. */
  readonly tools: number;
  readonly tokens: number;
}

const SCHEMA = [
  `CREATE TABLE agents (
     run TEXT NOT NULL,
     id INTEGER NOT NULL,
     kind TEXT NOT NULL,
     label TEXT NOT NULL,
     task TEXT NOT NULL,
     state TEXT NOT NULL,
     started_at INTEGER NOT NULL,
     finished_at INTEGER,
     reason TEXT NOT NULL,
     record_id TEXT,
     chars INTEGER NOT NULL,
     exit_code INTEGER,
     text TEXT NOT NULL,
     tools INTEGER NOT NULL DEFAULT 0,
     tokens INTEGER NOT NULL DEFAULT 0,
     PRIMARY KEY (run, id))`,
  'CREATE INDEX agents_started ON agents(started_at)',
];

/** The view read from the record: code points of its head and its tail after the row's text. */
const VIEW_ONCE = ['ALTER TABLE agents ADD COLUMN view_head INTEGER', 'ALTER TABLE agents ADD COLUMN view_tail INTEGER', 'CREATE INDEX agents_record ON agents(record_id)'];

interface Row {
  run: string;
  id: number;
  kind: string;
  label: string;
  task: string;
  state: string;
  started_at: number;
  finished_at: number | null;
  reason: string;
  record_id: string | null;
  chars: number;
  exit_code: number | null;
  text: string;
  tools: number;
  tokens: number;
  view_head?: number | null;
  view_tail?: number | null;
}

/** The reason written on the rows of a supervisor that died with agents live. */
export const SUPERVISOR_GONE = 'the supervisor exited; its reaper stopped the agent';

/** The reason on such a row when its cockpit may restore it (docs/restore.md). */
export const SUPERVISOR_GONE_RESTORABLE = 'its cockpit ended without tai kill or its main program\'s exit; tai ls lists it to restore';

/** The run key of this process. */
export function currentRun(pid: number = process.pid, startedAt: number = Math.round(performance.timeOrigin)): string {
  return `${pid}-${startedAt}`;
}

/** The agents' rows of every tai process on the machine. */
export class AgentsStore {
  constructor(readonly db: StateDb) {
    migrate(db, 'agents/1', SCHEMA);
    migrate(db, 'agents/2', VIEW_ONCE);
    compactOldViews(db);
  }

  /** Writes (inserts or replaces) one agent's row; a claim check's view in its text is kept as a reference to its record. */
  save(agent: StoredAgent): void {
    const view = agent.recordId === null ? undefined : splitView(agent.text, agent.recordId, agent.chars);
    guardBusy(this.db, () =>
      this.db
        .transaction(() => {
          if (view !== undefined) this.db.exec(RECORD_DELETE_TRIGGER);
          this.db
            .prepare(
              `INSERT OR REPLACE INTO agents (run, id, kind, label, task, state, started_at, finished_at, reason, record_id, chars, exit_code, text, tools, tokens, view_head, view_tail)
               VALUES (@run, @id, @kind, @label, @task, @state, @startedAt, @finishedAt, @reason, @recordId, @chars, @exitCode, @text, @tools, @tokens, @viewHead, @viewTail)`,
            )
            .run({ ...agent, text: view?.before ?? agent.text, viewHead: view?.head ?? null, viewTail: view?.tail ?? null });
        })
        .immediate(),
    );
  }

  /** One agent's row, or undefined; its text whole (a claim check's view read from its record). */
  get(run: string, id: number): StoredAgent | undefined {
    const row = this.db.prepare<[string, number], Row>('SELECT * FROM agents WHERE run = ? AND id = ?').get(run, id);
    if (!row) return undefined;
    const agent = fromRow(row);
    const head = row.view_head ?? null;
    const tail = row.view_tail ?? 0;
    if (head === null || row.record_id === null) return agent;
    // A row with a view was written with its record (and the records table) there; the trigger keeps it so.
    const ends = this.db
      .prepare<{ head: number; tail: number; id: string }, { head: string; tail: string }>(
        `SELECT ${recordSliceSql('records.seq', '0', '@head')} AS head, ${recordSliceSql('records.seq', 'records.chars - @tail', '@tail')} AS tail FROM records WHERE id = @id AND writing IS NULL`,
      )
      .get({ head, tail, id: row.record_id });
    if (!ends) return agent;
    return { ...agent, text: `${row.text}${ends.head}\n\n${claimLine(row.record_id, row.chars, head, row.chars - head - tail)}\n\n${ends.tail}` };
  }

  /** The newest agent with panel id `id`, of the supervisor with pid `pid` when given (`tai logs 4242/3`). */
  find(id: number, pid?: number): StoredAgent | undefined {
    const row =
      pid === undefined
        ? this.db.prepare<[number], Row>('SELECT * FROM agents WHERE id = ? ORDER BY started_at DESC LIMIT 1').get(id)
        : this.db.prepare<[number, string], Row>('SELECT * FROM agents WHERE id = ? AND run LIKE ? ORDER BY started_at DESC LIMIT 1').get(id, `${pid}-%`);
    return row ? fromRow(row) : undefined;
  }

  /** The newest rows first, at most `limit`. */
  list(limit: number = 50): StoredAgent[] {
    return this.db
      .prepare<[number], Row>('SELECT * FROM agents ORDER BY started_at DESC, id DESC LIMIT ?')
      .all(Math.max(1, limit))
      .map(fromRow);
  }

  /**
   * Marks the live rows of runs whose supervisor is gone as cancelled (their
   * reapers killed the agents when the supervisor's lifeline closed); returns how many.
   */
  settleDead(now: number, isAlive: (pid: number) => boolean = pidAlive): number {
    const live = this.db.prepare<[], Row>("SELECT * FROM agents WHERE state IN ('queued','running','idle','waiting','asking')").all();
    let n = 0;
    for (const row of live) {
      const pid = Number(row.run.split('-')[0]);
      if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) continue;
      this.save({ ...fromRow(row), state: 'cancelled', finishedAt: now, reason: this.#restorable(row.run, row.id) ? SUPERVISOR_GONE_RESTORABLE : SUPERVISOR_GONE, exitCode: 130 });
      n++;
    }
    return n;
  }

  /** True when the agent's launch is kept live for a restore (src/io/restore/restore-store.ts): its row is settled, its launch is not touched. */
  #restorable(run: string, id: number): boolean {
    try {
      const sql = "SELECT l.live FROM launches l JOIN cockpits c ON c.run = l.run WHERE l.run = ? AND l.id = ? AND c.state IN ('running','restoring')";
      return this.db.prepare<[string, number], { live: number }>(sql).get(run, id)?.live === 1;
    } catch {
      return false; // a database without the restore's tables
    }
  }
}

function fromRow(row: Row): StoredAgent {
  const state = (PANEL_STATES as readonly string[]).includes(row.state) ? (row.state as PanelState) : 'failed';
  return {
    run: row.run,
    id: row.id,
    kind: row.kind,
    label: row.label,
    task: row.task,
    state,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    reason: row.reason,
    recordId: row.record_id,
    chars: row.chars,
    exitCode: row.exit_code,
    text: row.text,
    tools: row.tools,
    tokens: row.tokens,
  };
}

/**
 * A stored agent as a status row (store/status.ts) for `tai status` without a cockpit: ids are unique only
 * within their run, so the label names the run when it is not `run`.
 */
export function statusRow(agent: StoredAgent, now: number, run?: string): AgentRow {
  const end = agent.finishedAt ?? now;
  return {
    id: agent.id,
    kind: 'agent',
    label: run === undefined || agent.run === run ? agent.label : `${agent.label} (run ${agent.run})`,
    task: agent.task,
    state: agent.state,
    startedAt: agent.startedAt,
    lastEventAt: end,
    ...(agent.finishedAt === null ? {} : { finishedAt: agent.finishedAt }),
    elapsedMs: end - agent.startedAt,
    tools: agent.tools,
    tokens: agent.tokens,
    droppedBytes: 0,
    reason: agent.reason,
  };
}

/** True when a process with this pid exists (signal 0 probes without sending). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return err instanceof Error && 'code' in err && err.code === 'EPERM';
  }
}
