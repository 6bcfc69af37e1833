/**
 * `tai ask log [--json] [--limit N]` (docs/agents.md, "The inbox"): the audit
 * log of every question and answer on this machine, oldest first, read from
 * the state database (src/io/storage/ask-log.ts), so it answers with no
 * cockpit running. Exit 0, 64 for a bad line, 3 for a storage fault.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { auditLine } from '../../core/inbox/audit.js';
import { EXIT_STORAGE } from '../../io/agents/agent-results.js';
import { AskLogStore } from '../../io/storage/ask-log.js';
import { openStateDb, STATE_DB_FILE, StateDbError, stateDir } from '../../io/storage/state-db.js';
import type { AskOptions } from './ask-options.js';
import { CommandLineError, usageError, wholeNumber } from '../command-line.js';
import { CliOutput, field } from '../output.js';

/** Entries shown without --limit. */
const LOG_DEFAULT = 200;

/** Runs `tai ask log`. */
export async function askLog(values: AskOptions, rest: readonly string[], usage: string, out: CliOutput, env: NodeJS.ProcessEnv): Promise<number> {
  const spec = { name: 'ask', usage };
  if (rest.length > 0) return usageError(spec, out, 'log takes no arguments');
  let limit: number;
  try {
    limit = wholeNumber('limit', values.limit, 1) ?? LOG_DEFAULT;
  } catch (err) {
    if (err instanceof CommandLineError) return usageError(spec, out, err.message);
    throw err;
  }
  const path = join(stateDir(env), STATE_DB_FILE);
  if (!existsSync(path)) {
    if (values.json) out.json([]);
    else out.say('no question has been asked on this machine yet\n');
    return 0;
  }
  try {
    const db = openStateDb(path);
    try {
      const entries = new AskLogStore(db).read(limit);
      if (values.json) out.json(entries);
      else if (entries.length === 0) out.say('no question has been asked on this machine yet\n');
      else for (const e of entries) out.say(`${field(auditLine(e))}\n`);
      return 0;
    } finally {
      db.close();
    }
  } catch (err) {
    if (!(err instanceof StateDbError)) throw err;
    out.warn(`tai ask: ${field(err.message)}\n`);
    return EXIT_STORAGE;
  }
}
