/**
 * The lanes' rows on the state database, so a lane outlives the cockpit that made it. Keyed by repository (git's
 * common folder, one per clone) and name, and written before the worktree, so of two processes making one lane
 * only one wins (the primary key decides).
 */
import { guardBusy, migrate, type StateDb } from '../storage/state-db.js';

/** How the lane's agent was started, so `tai lane restart` starts the same one. */
export interface LaneAgentSpec {
  readonly kind: string;
  readonly argv: readonly string[];
  readonly label: string;
  readonly prompt?: string;
  readonly timeout?: number;
  readonly allow?: boolean;
}

/** One lane as stored. */
export interface StoredLane {
  /** The repository's common git folder (`git rev-parse --git-common-dir`, absolute). */
  readonly repo: string;
  readonly name: string;
  /** The main checkout the lane was made from (its top folder). */
  readonly top: string;
  /** `tai/NAME`. */
  readonly branch: string;
  /** The lane's worktree, `<repo>/tai-lanes/NAME`. */
  readonly worktree: string;
  /** The commit the lane was made from. */
  readonly base: string;
  /** The branch the lane was made from and merges into. */
  readonly baseBranch: string;
  /** The agent's task: the merge's commit message for uncommitted edits. */
  readonly task: string;
  readonly agent: LaneAgentSpec;
  /** The run and panel id of the lane's latest agent, once one started. */
  readonly agentRun: string | null;
  readonly agentId: number | null;
  /**
   * The latest agent's process (its pid and its start time, src/io/process-identity.ts),
   * once its reaper reported it: whether the agent still runs, even after its supervisor is gone.
   */
  readonly agentPid: number | null;
  readonly agentStart: string | null;
  readonly createdAt: number;
  readonly mergedAt: number | null;
  /** The host the lane lives on (docs/remote.md, "Lanes on a host"); absent or null: this machine. */
  readonly host?: string | null;
}

const SCHEMA = [
  `CREATE TABLE lanes (
     repo TEXT NOT NULL,
     name TEXT NOT NULL,
     top TEXT NOT NULL,
     branch TEXT NOT NULL,
     worktree TEXT NOT NULL,
     base TEXT NOT NULL,
     base_branch TEXT NOT NULL,
     task TEXT NOT NULL,
     agent TEXT NOT NULL,
     agent_run TEXT,
     agent_id INTEGER,
     created_at INTEGER NOT NULL,
     merged_at INTEGER,
     PRIMARY KEY (repo, name))`,
];

/** The agent's process identity, so a recycled pid is not taken for the agent (`tai lane drop` while it runs). */
const SCHEMA_2 = ['ALTER TABLE lanes ADD COLUMN agent_pid INTEGER', 'ALTER TABLE lanes ADD COLUMN agent_start TEXT'];

/** A lane on another host: its paths are the host's (src/io/remote/remote-lanes.ts). */
const SCHEMA_HOST = ['ALTER TABLE lanes ADD COLUMN host TEXT'];

interface Row {
  repo: string;
  name: string;
  top: string;
  branch: string;
  worktree: string;
  base: string;
  base_branch: string;
  task: string;
  agent: string;
  agent_run: string | null;
  agent_id: number | null;
  agent_pid: number | null;
  agent_start: string | null;
  created_at: number;
  merged_at: number | null;
  host: string | null;
}

/** The `lanes` table. */
export class LaneStore {
  constructor(readonly db: StateDb) {
    migrate(db, 'lanes/1', SCHEMA);
    migrate(db, 'lanes/2', SCHEMA_2);
    migrate(db, 'lanes/host', SCHEMA_HOST);
  }

  /** Inserts a new lane; false when the repository already has a lane of that name. */
  insert(lane: StoredLane): boolean {
    return guardBusy(this.db, () => {
      const info = this.db
        .prepare(
          `INSERT OR IGNORE INTO lanes (repo, name, top, branch, worktree, base, base_branch, task, agent, agent_run, agent_id, agent_pid, agent_start, created_at, merged_at, host)
           VALUES (@repo, @name, @top, @branch, @worktree, @base, @baseBranch, @task, @agent, @agentRun, @agentId, @agentPid, @agentStart, @createdAt, @mergedAt, @host)`,
        )
        .run({ ...lane, agent: JSON.stringify(lane.agent), host: lane.host ?? null });
      return info.changes === 1;
    });
  }

  /** One lane, or undefined. */
  get(repo: string, name: string): StoredLane | undefined {
    const row = this.db.prepare<[string, string], Row>('SELECT * FROM lanes WHERE repo = ? AND name = ?').get(repo, name);
    return row ? fromRow(row) : undefined;
  }

  /** Every lane of a repository (all repositories when `repo` is omitted), oldest first. */
  list(repo?: string): StoredLane[] {
    const rows =
      repo === undefined
        ? this.db.prepare<[], Row>('SELECT * FROM lanes ORDER BY created_at, name').all()
        : this.db.prepare<[string], Row>('SELECT * FROM lanes WHERE repo = ? ORDER BY created_at, name').all(repo);
    return rows.map(fromRow);
  }

  /** Records the agent now running in the lane (its process is not known yet). */
  setAgent(repo: string, name: string, run: string, id: number): void {
    guardBusy(this.db, () =>
      this.db.prepare('UPDATE lanes SET agent_run = ?, agent_id = ?, agent_pid = NULL, agent_start = NULL WHERE repo = ? AND name = ?').run(run, id, repo, name),
    );
  }

  /** Records the process of the lane's agent `run`/`id`; a lane whose latest agent is another one is left alone. */
  setAgentProcess(repo: string, name: string, run: string, id: number, pid: number, start: string | null): void {
    guardBusy(this.db, () =>
      this.db
        .prepare('UPDATE lanes SET agent_pid = ?, agent_start = ? WHERE repo = ? AND name = ? AND agent_run = ? AND agent_id = ?')
        .run(pid, start, repo, name, run, id),
    );
  }

  /** Records a merge (and the commit the lane now counts from). */
  setMerged(repo: string, name: string, at: number): void {
    guardBusy(this.db, () => this.db.prepare('UPDATE lanes SET merged_at = ? WHERE repo = ? AND name = ?').run(at, repo, name));
  }

  /** Removes a lane's row. */
  remove(repo: string, name: string): void {
    guardBusy(this.db, () => this.db.prepare('DELETE FROM lanes WHERE repo = ? AND name = ?').run(repo, name));
  }
}

function fromRow(row: Row): StoredLane {
  return {
    repo: row.repo,
    name: row.name,
    top: row.top,
    branch: row.branch,
    worktree: row.worktree,
    base: row.base,
    baseBranch: row.base_branch,
    task: row.task,
    agent: JSON.parse(row.agent) as LaneAgentSpec,
    agentRun: row.agent_run,
    agentId: row.agent_id,
    agentPid: row.agent_pid,
    agentStart: row.agent_start,
    createdAt: row.created_at,
    mergedAt: row.merged_at,
    ...(row.host === null ? {} : { host: row.host }),
  };
}
