/**
 * The inbox's audit log on the state database (docs/agents.md, "The inbox"; `tai ask log`): every question and
 * answer, arguments masked, keyed by run so two cockpits' `q1` stay apart; the newest ASK_LOG_KEEP are kept.
 */
import type { AuditEntry, AuditEvent } from '../../core/inbox/audit.js';
import { maskSecrets } from '../../core/text/secrets.js';
import { guardBusy, migrate, type StateDb } from './state-db.js';

const SCHEMA = [
  `CREATE TABLE ask_log (
     seq INTEGER PRIMARY KEY AUTOINCREMENT,
     run TEXT NOT NULL,
     at INTEGER NOT NULL,
     event TEXT NOT NULL,
     qid TEXT NOT NULL,
     panel INTEGER NOT NULL,
     label TEXT NOT NULL,
     tool TEXT NOT NULL,
     args TEXT NOT NULL,
     option TEXT,
     by TEXT,
     rule TEXT,
     why TEXT)`,
  'CREATE INDEX ask_log_at ON ask_log (at)',
];

/** Entries kept in all (every cockpit of the machine). */
export const ASK_LOG_KEEP = 10_000;

/** An entry as read back, with the run that wrote it. */
export interface StoredAuditEntry extends AuditEntry {
  readonly run: string;
}

interface Row {
  run: string;
  at: number;
  event: string;
  qid: string;
  panel: number;
  label: string;
  tool: string;
  args: string;
  option: string | null;
  by: string | null;
  rule: string | null;
  why: string | null;
}

/** The audit log of every tai process on the machine. */
export class AskLogStore {
  constructor(readonly db: StateDb) {
    migrate(db, 'ask_log/1', SCHEMA);
  }

  /** Appends `entries` of run `run` in one transaction, tool and arguments masked again (a store never trusts its caller to have). */
  append(run: string, ...entries: readonly AuditEntry[]): void {
    if (entries.length === 0) return;
    guardBusy(this.db, () =>
      this.db
        .transaction(() => {
          const insert = this.db.prepare('INSERT INTO ask_log (run, at, event, qid, panel, label, tool, args, option, by, rule, why) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
          for (const e of entries) {
            insert.run(run, e.at, e.event, e.qid, e.panel, e.label, maskSecrets(e.tool), maskSecrets(e.args), e.option ?? null, e.by ?? null, e.rule ?? null, e.why ?? null);
          }
          this.db.prepare('DELETE FROM ask_log WHERE seq <= (SELECT MAX(seq) FROM ask_log) - ?').run(ASK_LOG_KEEP);
        })
        .immediate(),
    );
  }

  /** The last `limit` entries, oldest first; with `run`, only that run's. */
  read(limit: number, run?: string): StoredAuditEntry[] {
    return guardBusy(this.db, () => {
      const rows =
        run === undefined
          ? this.db.prepare<[number], Row>('SELECT * FROM ask_log ORDER BY seq DESC LIMIT ?').all(limit)
          : this.db.prepare<[string, number], Row>('SELECT * FROM ask_log WHERE run = ? ORDER BY seq DESC LIMIT ?').all(run, limit);
      return rows.reverse().map(entryOf);
    });
  }
}

function entryOf(r: Row): StoredAuditEntry {
  return {
    run: r.run,
    at: r.at,
    event: r.event as AuditEvent,
    qid: r.qid,
    panel: r.panel,
    label: r.label,
    tool: r.tool,
    args: r.args,
    ...(r.option === null ? {} : { option: r.option }),
    ...(r.by === null ? {} : { by: r.by }),
    ...(r.rule === null ? {} : { rule: r.rule }),
    ...(r.why === null ? {} : { why: r.why }),
  };
}
