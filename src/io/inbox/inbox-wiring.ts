/**
 * The folder `src/io/inbox/`: the approval inbox's IO (docs/agents.md, "The inbox"). This file ties the board's
 * inbox to the state database: each audit entry appended to the ask log, and the unexpired saved rules held again
 * as the service opens.
 */
import type { Board } from '../../../store/board.js';
import { messageOf } from '../../core/errors.js';
import type { AuditEntry } from '../../core/inbox/audit.js';
import { ruleText } from '../../core/inbox/rules.js';
import { AskLogStore } from '../storage/ask-log.js';
import type { StateDb } from '../storage/state-db.js';
import { savedRules } from './saved-rules.js';

/** Ties `board`'s inbox to `db` and the registry; returns what undoes it. */
export function attachInbox(board: Board, db: StateDb, run: string, env: NodeJS.ProcessEnv, now: number, log: (line: string) => void): () => void {
  const store = new AskLogStore(db);
  // Entries of one turn of the event loop go in one transaction: a flood of questions is one write, not one fsync each.
  const pending: AuditEntry[] = [];
  let scheduled: NodeJS.Immediate | undefined;
  const flush = (): void => {
    scheduled = undefined;
    const entries = pending.splice(0);
    try {
      store.append(run, ...entries);
    } catch (err) {
      // The answers stand: only their log lines are lost, and the log says so.
      log(`ask log: ${entries.length} entries not stored: ${messageOf(err)}`);
    }
  };
  const off = board.getState().onAudit((entry) => {
    pending.push(entry);
    scheduled ??= setImmediate(flush);
  });
  try {
    for (const spec of savedRules(env)) {
      if (spec.expiresAt <= now) continue;
      try {
        board.getState().addRule({ ...spec, everything: true }, true, now);
      } catch (err) {
        log(`saved rule (${ruleText(spec)}) not held: ${messageOf(err)}`);
      }
    }
  } catch (err) {
    log(`saved rules not read: ${messageOf(err)}`);
  }
  return () => {
    off();
    if (scheduled !== undefined) clearImmediate(scheduled);
    flush();
  };
}
